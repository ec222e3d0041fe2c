#include "offload/host_view.h"

#include <rte_hash.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace ordis::offload {
namespace {

// The keys are digests already: their low bits serve as the table's hash.
uint32_t DigestHash(const void* key, uint32_t, uint32_t) {
  uint64_t digest;
  std::memcpy(&digest, key, sizeof(digest));
  return static_cast<uint32_t>(digest);
}

}  // namespace

persistence::Status HostView::Create(uint32_t entries, std::unique_ptr<HostView>* out) {
  // rte_hash names live in one process-wide registry: each view its own.
  static std::atomic<uint64_t> next_id{0};
  const std::string name = "ordis_host_view_" + std::to_string(next_id.fetch_add(1));
  rte_hash_parameters params{};
  params.name = name.c_str();
  params.entries = std::max<uint32_t>(entries, 8);
  params.key_len = sizeof(uint64_t);
  params.hash_func = DigestHash;
  params.socket_id = 0;
  rte_hash* table = rte_hash_create(&params);
  if (table == nullptr) {
    return persistence::Status::Error("Host View: rte_hash_create of " + std::to_string(entries) +
                                      " entries failed");
  }
  out->reset(new HostView(table, params.entries));
  return persistence::Status::Ok();
}

HostView::~HostView() { rte_hash_free(table_); }

uint64_t HostView::Digest(std::string_view encoded_key) {
  return XXH64(encoded_key.data(), encoded_key.size(), 0);
}

bool HostView::Add(uint64_t digest) {
  std::unique_lock lock(mu_);
  return rte_hash_add_key(table_, &digest) >= 0;
}

void HostView::Remove(uint64_t digest) {
  std::unique_lock lock(mu_);
  rte_hash_del_key(table_, &digest);
}

void HostView::Clear() {
  std::unique_lock lock(mu_);
  rte_hash_reset(table_);
}

void HostView::Lookup(std::span<const uint64_t> digests, std::span<bool> resident) const {
  std::shared_lock lock(mu_);
  const void* keys[RTE_HASH_LOOKUP_BULK_MAX];
  int32_t positions[RTE_HASH_LOOKUP_BULK_MAX];
  for (size_t at = 0; at < digests.size(); at += RTE_HASH_LOOKUP_BULK_MAX) {
    const size_t n = std::min<size_t>(RTE_HASH_LOOKUP_BULK_MAX, digests.size() - at);
    for (size_t i = 0; i < n; ++i) keys[i] = &digests[at + i];
    rte_hash_lookup_bulk(table_, keys, static_cast<uint32_t>(n), positions);
    for (size_t i = 0; i < n; ++i) resident[at + i] = positions[i] >= 0;
  }
}

size_t HostView::size() const {
  std::shared_lock lock(mu_);
  const int32_t n = rte_hash_count(table_);
  return n < 0 ? 0 : static_cast<size_t>(n);
}

}  // namespace ordis::offload
