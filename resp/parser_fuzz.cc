// libFuzzer target for resp::Parser. Input layout: one byte of options (limits, authentication,
// how to split), two bytes seeding the split points, then the bytes a client sends.
//
// Checks: every call consumes no more than it was given; arguments lie inside the consumed bytes
// (multibulk) or entirely outside the input (inline, stored in the parser); and feeding the bytes
// in random pieces, each copied to a fresh exact-size allocation, yields exactly the commands,
// error and consumed byte count of feeding them whole. AddressSanitizer catches any read outside
// the input or through a stale pointer into an earlier piece.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "resp/parser.h"

namespace {

using ordis::resp::Parser;
using ordis::resp::ParserLimits;
using ordis::resp::ParseStatus;

void Check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "invariant violated: %s\n", what);
    abort();
  }
}

struct Outcome {
  std::vector<std::vector<std::string>> commands;
  ParseStatus last = ParseStatus::kNeedMore;
  std::string error;
  size_t consumed = 0;  // bytes consumed in all, skipped empty commands included
};

// A heap buffer of exactly `size` bytes, so that reading one byte past it is an ASan error.
std::unique_ptr<char[]> ExactCopy(const char* a, size_t a_len, const char* b, size_t b_len) {
  std::unique_ptr<char[]> p(new char[a_len + b_len + 1]);  // +1: new char[0] is still valid
  if (a_len > 0) memcpy(p.get(), a, a_len);
  if (b_len > 0) memcpy(p.get() + a_len, b, b_len);
  return p;
}

// Parses everything parseable in buf[0, *size), records it, drops the consumed bytes by moving the
// rest to a new allocation. Returns false once the parser reported an error.
bool Drain(Parser* parser, const ParserLimits& limits, std::unique_ptr<char[]>* buf, size_t* size,
           Outcome* out) {
  std::vector<std::string_view> args;
  size_t start = 0;
  bool alive = true;
  while (true) {
    const char* base = buf->get() + start;
    const size_t len = *size - start;
    size_t consumed = 0;
    const ParseStatus status = parser->Parse(std::string_view(base, len), &consumed, &args);
    Check(consumed <= len, "consumed more than the input");
    out->consumed += consumed;
    out->last = status;
    if (status == ParseStatus::kError) {
      Check(args.empty(), "arguments returned with an error");
      Check(!parser->ErrorText().empty(), "error without text");
      Check(parser->ErrorText().find_first_of("\r\n") == std::string::npos, "CR/LF in error");
      Check(!parser->InProgress(), "in progress after an error");
      out->error = parser->ErrorText();
      alive = false;
      break;
    }
    if (status == ParseStatus::kNeedMore) {
      Check(args.empty(), "arguments returned with kNeedMore");
      Check(parser->BulkBytesPending() <= limits.max_bulk_len + 2, "bulk pending above limit");
      start += consumed;
      break;
    }
    Check(consumed > 0, "command of zero bytes");
    Check(!args.empty(), "command without arguments");
    Check(!parser->InProgress(), "in progress after a command");
    std::vector<std::string> command;
    for (std::string_view a : args) {
      const bool inside = a.data() >= base && a.data() + a.size() <= base + consumed;
      const bool outside = a.data() + a.size() <= base || a.data() >= base + len;
      Check(inside || outside, "argument straddles the input");
      Check(a.size() <= limits.max_bulk_len || outside, "bulk argument above limit");
      command.emplace_back(a);  // reads every byte: ASan checks the view
    }
    out->commands.push_back(std::move(command));
    start += consumed;
  }
  // Keep the unconsumed bytes, at a new address.
  *buf = ExactCopy(buf->get() + start, *size - start, nullptr, 0);
  *size -= start;
  return alive;
}

Outcome Run(const ParserLimits& limits, bool authenticated, std::string_view input,
            const std::vector<size_t>& piece_sizes) {
  Parser parser(limits);
  parser.set_authenticated(authenticated);
  Outcome out;
  std::unique_ptr<char[]> buf = ExactCopy(nullptr, 0, nullptr, 0);
  size_t size = 0;
  size_t fed = 0;
  for (size_t piece : piece_sizes) {
    const size_t n = std::min(piece, input.size() - fed);
    // Each piece arrives in a new allocation; the old one is scribbled over and freed.
    std::unique_ptr<char[]> next = ExactCopy(buf.get(), size, input.data() + fed, n);
    memset(buf.get(), '#', size);
    buf = std::move(next);
    size += n;
    fed += n;
    if (!Drain(&parser, limits, &buf, &size, &out)) break;
    if (fed == input.size()) break;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const uint8_t options = data[0];
  uint32_t seed = (static_cast<uint32_t>(data[1]) << 8 | data[2]) * 2654435761u + 1;
  const std::string_view input(reinterpret_cast<const char*>(data) + 3, size - 3);

  ParserLimits limits;
  if (options & 1) {
    // Small limits so that the fuzzer reaches every limit with short inputs.
    limits.max_bulk_len = 64;
    limits.max_multibulk_len = 8;
    limits.max_inline_len = 32;
    limits.unauth_max_multibulk_len = 2;
    limits.unauth_max_bulk_len = 8;
  }
  const bool authenticated = (options & 2) == 0;

  const Outcome whole = Run(limits, authenticated, input, {input.size()});

  static constexpr size_t kMaxPiece[] = {4, 64, 1024};
  std::vector<size_t> pieces;
  const unsigned mode = (options >> 2) & 3;
  size_t total = 0;
  while (total < input.size()) {
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    size_t piece = 0;
    if (mode == 3) {
      piece = pieces.empty() ? seed % (input.size() + 1) : input.size() - total;
    } else {
      piece = 1 + seed % kMaxPiece[mode];
    }
    pieces.push_back(piece);
    total += piece;
  }
  const Outcome split = Run(limits, authenticated, input, pieces);

  Check(split.commands == whole.commands, "split input gave other commands");
  Check(split.last == whole.last, "split input ended in another state");
  Check(split.error == whole.error, "split input gave another error");
  Check(split.consumed == whole.consumed, "split input consumed other bytes");
  return 0;
}
