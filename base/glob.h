// Redis's glob-style matching (util.c stringmatchlen): * ? [abc] [^a] [a-z] and \ escapes.
#pragma once

#include <string_view>

namespace ordis {

bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase = false);

// The literal prefix every match of pattern starts with ("user:*" -> "user:"), so a scan over the
// ordered keyspace can seek to it and stop after it.
std::string_view GlobLiteralPrefix(std::string_view pattern);

}  // namespace ordis
