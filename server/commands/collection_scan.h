// HSCAN / SSCAN / ZSCAN's shared prologue.
#pragma once

#include <cstdint>
#include <string_view>

#include "server/command/arg_parser.h"
#include "server/command/command.h"
#include "server/command/errors.h"
#include "server/commands/lookup.h"
#include "server/keyspace/object.h"

namespace ordis::server {

// HSCAN / SSCAN / ZSCAN key cursor [MATCH pattern] [COUNT count], up to the walk. ordis answers
// every collection scan in one reply with next cursor "0", whatever the cursor (Redis does the
// same for listpack-encoded collections): a complete iteration is then one call, which meets
// SCAN's guarantees trivially; COUNT is validated and ignored. Returns the collection of type t,
// or nullptr after replying (an error, WRONGTYPE, or the empty scan of a missing key, for which
// Redis does not look at the options). *pattern is empty when every element matches.
inline Object* BeginCollectionScan(CommandContext& ctx, ObjType t, std::string_view* pattern) {
  uint64_t cursor;
  if (!ParseScanCursor(ctx.args[2], &cursor)) {
    ctx.out.Error(errors::kInvalidCursor);
    return nullptr;
  }
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], t, &wrong_type);
  if (wrong_type) return nullptr;
  if (obj == nullptr) {
    ctx.out.ArrayHeader(2);
    ctx.out.Bulk("0");
    ctx.out.ArrayHeader(0);
    return nullptr;
  }
  *pattern = {};
  ArgParser p(ctx.args, 3);
  while (p.HasNext() && p.ok()) {
    const bool has_value = p.remaining() >= 2;
    if (has_value && p.Accept("COUNT")) {
      int64_t count = p.NextInt();
      if (p.ok() && count < 1) p.Fail(errors::kSyntax);
    } else if (has_value && p.Accept("MATCH")) {
      *pattern = p.Next();
      if (*pattern == "*") *pattern = {};
    } else {
      p.Fail(errors::kSyntax);
    }
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return nullptr;
  }
  return obj;
}

}  // namespace ordis::server
