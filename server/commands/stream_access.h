// What the stream commands share (stream_family.cc, stream_group_family.cc): Redis's ID parsing,
// entry replies, the node limits of the configuration.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "server/command/command.h"
#include "server/config/config.h"
#include "server/types/stream_value.h"

namespace ordis::server {

// Redis's string2ull: an int64 in canonical form that is not negative, else whatever strtoull
// takes whole (leading blanks, a sign, leading zeros) without overflow.
bool ParseStreamUint(std::string_view s, uint64_t* out);

// Redis's streamGenericParseIDOrReply without the reply: "ms-seq", "ms" (seq = missing_seq), and
// unless strict "-" (0-0) and "+" (the largest ID). seq_given non-null admits "ms-*", which sets
// *seq_given false (true otherwise). False: kInvalidStreamId.
bool ParseStreamId(std::string_view arg, uint64_t missing_seq, bool strict, bool* seq_given,
                   StreamId* id);
inline bool ParseStrictStreamId(std::string_view arg, StreamId* id) {
  return ParseStreamId(arg, 0, true, nullptr, id);
}
// streamParseIntervalIDOrReply: an ID, or "(" and a strict ID (*exclusive set).
bool ParseIntervalId(std::string_view arg, uint64_t missing_seq, StreamId* id, bool* exclusive);

inline void ReplyStreamId(resp::Writer& out, StreamId id) {
  std::string text;
  id.AppendTo(&text);
  out.Bulk(text);
}

// [id, [field, value, ...]]
inline void ReplyStreamEntry(resp::Writer& out, StreamId id, StreamFields fields) {
  out.ArrayHeader(2);
  ReplyStreamId(out, id);
  out.ArrayHeader(static_cast<int64_t>(fields.size()));
  for (std::string_view f : fields) out.Bulk(f);
}

// The entry id as [id, [field, value ...]], or false (nothing written) if it is not in s.
inline bool ReplyEntryIfPresent(resp::Writer& out, const StreamValue& s, StreamId id) {
  bool found = false;
  s.Range(id, id, false, [&](StreamId at, StreamFields fields) {
    ReplyStreamEntry(out, at, fields);
    found = true;
    return false;
  });
  return found;
}

inline StreamNodeLimits NodeLimits(const Config& config) {
  const int64_t bytes = config.stream_node_max_bytes();
  const int64_t entries = config.stream_node_max_entries();
  return {static_cast<size_t>(bytes < 0 ? 0 : bytes),
          static_cast<size_t>(entries < 0 ? 0 : entries)};
}

}  // namespace ordis::server
