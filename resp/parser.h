// Incremental RESP2 request parser (multibulk and inline commands).
//
// A pure state machine: bytes in, a status and a consumed count out; no I/O. It works in place over
// the caller's input buffer: arguments of a multibulk command are views into that buffer, so they
// stay valid until the caller discards or moves the consumed bytes. Inline arguments may need
// unescaping and are stored inside the parser (valid until the next Parse call).
//
// Split input: when a command is incomplete, Parse returns kNeedMore and consumes nothing; the
// parser remembers how far it got (as offsets from the command's first byte), so the next call must
// pass input starting at the same command's first byte (the buffer may have moved or grown) and
// does not rescan what it already parsed.
//
// Thread safety: none; one parser per connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ordis::resp {

// Redis's protocol limits (server.h / networking.c), configurable where redis.conf makes them so.
struct ParserLimits {
  uint64_t max_bulk_len = 512ull * 1024 * 1024;  // proto-max-bulk-len
  uint64_t max_multibulk_len = 2147483647;       // INT_MAX, as Redis
  size_t max_inline_len = 64 * 1024;             // PROTO_INLINE_MAX_SIZE
  // Before AUTH, when a password is required, Redis rejects larger requests.
  uint64_t unauth_max_multibulk_len = 10;
  uint64_t unauth_max_bulk_len = 16384;
};

enum class ParseStatus {
  kCommand,   // one whole command parsed into *args; *consumed bytes belong to it
  kNeedMore,  // incomplete; *consumed == 0; call again with more bytes appended
  kError,     // protocol error; ErrorText() has Redis's reply; the connection must be closed
};

class Parser {
 public:
  explicit Parser(const ParserLimits& limits = {});

  // Parses at most one command from the start of `input`. Empty multibulks ("*0\r\n", "*-1\r\n")
  // and empty inline lines are consumed and skipped, as Redis does. On kCommand, *consumed is the
  // number of bytes of input the command occupied (including skipped empty ones before it) and
  // *args holds its arguments (at least one). On kNeedMore, *consumed may be non-zero only for
  // skipped empty commands.
  ParseStatus Parse(std::string_view input, size_t* consumed, std::vector<std::string_view>* args);

  // Redis's error reply text for the last kError, without the leading '-' and trailing CRLF,
  // e.g. "ERR Protocol error: invalid bulk length".
  const std::string& ErrorText() const { return error_; }

  // When false and a password is required, the tighter unauthenticated limits apply.
  void set_authenticated(bool authenticated) { authenticated_ = authenticated; }
  void set_limits(const ParserLimits& limits) { limits_ = limits; }

  // True iff a command has been partly parsed (the caller should keep its bytes).
  bool InProgress() const { return state_ != State::kStart; }

  // Bytes the current incomplete bulk argument still needs, so the caller can size its buffer for
  // a large value in one allocation (0 when unknown).
  uint64_t BulkBytesPending() const;

  // Bytes of the incomplete command already parsed into whole arguments (and the current bulk's
  // header): the rest of the caller's buffer is what Redis's query buffer would still hold, the
  // part client-query-buffer-limit counts.
  size_t ParsedBytes() const { return state_ == State::kMultibulkArgs ? pos_ : 0; }

  // Forgets an incomplete command: the next Parse starts at the beginning of the input it is
  // given (the caller parses its unconsumed bytes again).
  void Restart() { Reset(); }

 private:
  // kStart: between commands. kInline / kMultibulkCount: looking for the end of the first line
  // (scan_ says how far). kMultibulkArgs: reading "$<len>" headers and payloads (pos_, bulk_len_).
  enum class State { kStart, kInline, kMultibulkCount, kMultibulkArgs };
  enum class LineEnd { kFound, kIncomplete, kTooLong };

  ParseStatus ParseInline(std::string_view input, size_t* consumed,
                          std::vector<std::string_view>* args);
  ParseStatus ParseMultibulk(std::string_view input, size_t* consumed,
                             std::vector<std::string_view>* args);
  // Looks for `delim` in the line starting at offset `start` the way Redis's strchr over its
  // NUL-terminated query buffer does, resuming at scan_.
  LineEnd FindLineEnd(std::string_view input, size_t start, char delim, size_t* at);
  ParseStatus Fail(std::string text);
  void Reset();

  ParserLimits limits_;
  bool authenticated_ = true;
  std::string error_;

  // Progress through the current command; offsets are from its first byte.
  State state_ = State::kStart;
  uint64_t args_expected_ = 0;
  size_t pos_ = 0;         // next byte to examine
  int64_t bulk_len_ = -1;  // length of the bulk being read, -1 before its header
  std::vector<std::pair<size_t, size_t>> arg_spans_;  // (offset, length) of parsed arguments
  size_t scan_ = 0;            // the current line has no terminator before this offset
  bool line_has_nul_ = false;  // a NUL precedes the terminator: Redis never finds the line end
  size_t seen_ = 0;            // input size at the last call, for BulkBytesPending()

  std::vector<std::string> inline_args_;
  size_t inline_argc_ = 0;  // inline_args_ beyond this are spare buffers
};

}  // namespace ordis::resp
