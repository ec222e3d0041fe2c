// The learned-index tree of DPA-Store (../shared/seeds/000, sections 3.1-3.2.4) over byte-string
// keys: PLA-modelled inner nodes and leaves, per-leaf insert buffers merged by background patcher
// threads, lock-free readers, pointer-swap publication and epoch-based reclamation.
// learned_store.cc explains the layout and the concurrency protocol.
#pragma once

#include <memory>

#include "index/ordered_store.h"

namespace ordis::index {

struct LearnedStoreOptions {
  // PLA error bounds, in positions: a lookup searches at most 2 * error + 2 slots of a node.
  // Defaults after bench/index.sh --shape: see the README's index table.
  int leaf_error = 8;
  int inner_error = 4;
  int leaf_capacity = 128;  // keys per leaf; a split leaves about a quarter free
  int insert_buffer = 32;   // slots per leaf insert buffer
  int patcher_threads = 1;
  bool hot_cache = true;  // per-thread cache of hot keys and of the lookup batch's keys
  // A partly filled insert buffer whose leaf took no write for this long is merged into its leaf
  // by a patcher, which frees the buffer (0: never; patcher.cc, SweepIdleBuffers).
  int idle_flush_ms = 1000;
};

std::unique_ptr<OrderedStore> NewLearnedStore(const LearnedStoreOptions& options);
std::unique_ptr<OrderedStore> NewLearnedStore();  // default options

}  // namespace ordis::index
