// The grammar and every error case follow Redis 7.0 networking.c (processInlineBuffer,
// processMultibulkBuffer) and sds.c (sdssplitargs), quirks included, so that clients see the
// same replies and the same connection closes as with Redis.

#include "resp/parser.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "base/number.h"
#include "base/split_args.h"

namespace ordis::resp {

namespace {

// Redis sizes argv by the declared count but never above 1024, so a client cannot make the server
// allocate for arguments it has not sent; beyond that the vectors grow as arguments arrive.
constexpr size_t kMaxReserve = 1024;
// Argument storage above this is released after use rather than kept for the next command.
constexpr size_t kMaxKeptSpans = 4 * kMaxReserve;
constexpr size_t kMaxKeptInlineArgs = 64;

}  // namespace

Parser::Parser(const ParserLimits& limits) : limits_(limits) {}

ParseStatus Parser::Parse(std::string_view input, size_t* consumed,
                          std::vector<std::string_view>* args) {
  *consumed = 0;
  args->clear();
  // The caller must come back with at least the bytes it showed us before. If it did not, the
  // remembered offsets may point past the input: start this command over, which is always right.
  if (state_ != State::kStart && input.size() < seen_) Reset();
  while (*consumed < input.size()) {
    std::string_view rest = input.substr(*consumed);
    // Like Redis's reqtype: decided by the first byte and kept until the command is complete.
    if (state_ == State::kStart) {
      state_ = rest[0] == '*' ? State::kMultibulkCount : State::kInline;
    }
    size_t used = 0;
    const ParseStatus status = state_ == State::kInline ? ParseInline(rest, &used, args)
                                                        : ParseMultibulk(rest, &used, args);
    if (status != ParseStatus::kCommand) return status;
    *consumed += used;
    if (!args->empty()) return status;
    // An empty multibulk or a blank inline line: skipped, as Redis resets the client and loops.
  }
  return ParseStatus::kNeedMore;
}

uint64_t Parser::BulkBytesPending() const {
  if (state_ != State::kMultibulkArgs || bulk_len_ < 0) return 0;
  // The payload and the two bytes that follow it.
  const uint64_t needed = pos_ + static_cast<uint64_t>(bulk_len_) + 2;
  return needed > seen_ ? needed - seen_ : 0;
}

Parser::LineEnd Parser::FindLineEnd(std::string_view input, size_t start, char delim, size_t* at) {
  // Redis searches the NUL-terminated query buffer with strchr: a NUL byte before the delimiter
  // hides the delimiter for good, and the request fails only once more than PROTO_INLINE_MAX_SIZE
  // bytes wait without one. We look no further than max_inline_len + 1 bytes into the line, so
  // the outcome does not depend on how the input was split across reads.
  const size_t available = input.size() - start;
  const bool over_limit = available > limits_.max_inline_len;
  const size_t window_end = start + (over_limit ? limits_.max_inline_len + 1 : available);
  if (!line_has_nul_ && scan_ < window_end) {
    const char* from = input.data() + scan_;
    const size_t len = window_end - scan_;
    const char* hit = static_cast<const char*>(memchr(from, delim, len));
    const size_t before = hit != nullptr ? static_cast<size_t>(hit - from) : len;
    if (memchr(from, '\0', before) != nullptr) {
      line_has_nul_ = true;
    } else if (hit != nullptr) {
      scan_ = static_cast<size_t>(hit - input.data());  // found again at once if we must wait
      *at = scan_;
      return LineEnd::kFound;
    } else {
      scan_ = window_end;
    }
  }
  return over_limit ? LineEnd::kTooLong : LineEnd::kIncomplete;
}

ParseStatus Parser::ParseMultibulk(std::string_view input, size_t* consumed,
                                   std::vector<std::string_view>* args) {
  seen_ = input.size();
  const char* data = input.data();
  if (state_ == State::kMultibulkCount) {
    size_t cr = 0;
    switch (FindLineEnd(input, 0, '\r', &cr)) {
      case LineEnd::kIncomplete:
        return ParseStatus::kNeedMore;
      case LineEnd::kTooLong:
        return Fail("ERR Protocol error: too big mbulk count string");
      case LineEnd::kFound:
        break;
    }
    // Redis wants one byte after the CR and skips it without checking that it is LF.
    if (cr + 1 >= input.size()) return ParseStatus::kNeedMore;
    int64_t count = 0;
    if (!ParseInt64(std::string_view(data + 1, cr - 1), &count) ||
        (count > 0 && static_cast<uint64_t>(count) > limits_.max_multibulk_len)) {
      return Fail("ERR Protocol error: invalid multibulk length");
    }
    if (!authenticated_ && count > 0 &&
        static_cast<uint64_t>(count) > limits_.unauth_max_multibulk_len) {
      return Fail("ERR Protocol error: unauthenticated multibulk length");
    }
    if (count <= 0) {
      *consumed = cr + 2;
      Reset();
      return ParseStatus::kCommand;  // with no arguments: the caller skips it
    }
    args_expected_ = static_cast<uint64_t>(count);
    arg_spans_.clear();
    arg_spans_.reserve(std::min<uint64_t>(args_expected_, kMaxReserve));
    pos_ = cr + 2;
    scan_ = pos_;
    bulk_len_ = -1;
    state_ = State::kMultibulkArgs;
  }

  while (arg_spans_.size() < args_expected_) {
    if (bulk_len_ < 0) {
      size_t cr = 0;
      switch (FindLineEnd(input, pos_, '\r', &cr)) {
        case LineEnd::kIncomplete:
          return ParseStatus::kNeedMore;
        case LineEnd::kTooLong:
          return Fail("ERR Protocol error: too big bulk count string");
        case LineEnd::kFound:
          break;
      }
      if (cr + 1 >= input.size()) return ParseStatus::kNeedMore;
      if (data[pos_] != '$') {
        // Redis formats the byte with %c and then turns CR and LF in the reply into spaces.
        const char got = data[pos_] == '\r' || data[pos_] == '\n' ? ' ' : data[pos_];
        return Fail(std::string("ERR Protocol error: expected '$', got '") + got + "'");
      }
      int64_t len = 0;
      if (!ParseInt64(std::string_view(data + pos_ + 1, cr - pos_ - 1), &len) || len < 0 ||
          static_cast<uint64_t>(len) > limits_.max_bulk_len) {
        return Fail("ERR Protocol error: invalid bulk length");
      }
      if (!authenticated_ && static_cast<uint64_t>(len) > limits_.unauth_max_bulk_len) {
        return Fail("ERR Protocol error: unauthenticated bulk length");
      }
      bulk_len_ = len;
      pos_ = cr + 2;
    }
    // The payload is followed by two bytes that Redis skips without checking that they are CRLF.
    const uint64_t needed = static_cast<uint64_t>(bulk_len_) + 2;
    if (input.size() - pos_ < needed) return ParseStatus::kNeedMore;
    arg_spans_.emplace_back(pos_, static_cast<size_t>(bulk_len_));
    pos_ += static_cast<size_t>(needed);
    scan_ = pos_;
    bulk_len_ = -1;
  }

  args->reserve(arg_spans_.size());
  for (const auto& [offset, length] : arg_spans_) args->emplace_back(data + offset, length);
  *consumed = pos_;
  Reset();
  return ParseStatus::kCommand;
}

ParseStatus Parser::ParseInline(std::string_view input, size_t* consumed,
                                std::vector<std::string_view>* args) {
  seen_ = input.size();
  size_t lf = 0;
  switch (FindLineEnd(input, 0, '\n', &lf)) {
    case LineEnd::kIncomplete:
      return ParseStatus::kNeedMore;
    case LineEnd::kTooLong:
      return Fail("ERR Protocol error: too big inline request");
    case LineEnd::kFound:
      break;
  }
  size_t line_len = lf;
  if (line_len > 0 && input[line_len - 1] == '\r') --line_len;
  if (inline_args_.size() > kMaxKeptInlineArgs) {
    inline_args_.resize(kMaxKeptInlineArgs);
    inline_args_.shrink_to_fit();
  }
  // FindLineEnd guarantees the line holds no NUL, which would end it for sdssplitargs.
  if (!SplitArgsInto(input.substr(0, line_len), &inline_args_, &inline_argc_)) {
    return Fail("ERR Protocol error: unbalanced quotes in request");
  }
  args->reserve(inline_argc_);
  for (size_t i = 0; i < inline_argc_; ++i) args->emplace_back(inline_args_[i]);
  *consumed = lf + 1;
  Reset();
  return ParseStatus::kCommand;  // with no arguments for a blank line: the caller skips it
}

ParseStatus Parser::Fail(std::string text) {
  error_ = std::move(text);
  Reset();
  return ParseStatus::kError;
}

void Parser::Reset() {
  state_ = State::kStart;
  args_expected_ = 0;
  pos_ = 0;
  bulk_len_ = -1;
  if (arg_spans_.capacity() > kMaxKeptSpans) {
    // A command with many arguments should not pin its memory for the connection's lifetime.
    std::vector<std::pair<size_t, size_t>>().swap(arg_spans_);
  } else {
    arg_spans_.clear();
  }
  scan_ = 0;
  line_has_nul_ = false;
  seen_ = 0;
}

}  // namespace ordis::resp
