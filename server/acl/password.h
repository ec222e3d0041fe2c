// Passwords as Redis keeps them: only the SHA-256 digest, in lower-case hex (what ACL LIST and
// ACL GETUSER show, and what the '#' and '!' rules take).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ordis::acl {

// The SHA-256 of password, 64 lower-case hex characters.
std::string HashPassword(std::string_view password);

// True iff hash is exactly 64 characters of [0-9a-f] (Redis refuses upper case).
bool IsPasswordHash(std::string_view hash);

// Compares two equal-length digests without an early exit, so the time taken says nothing about
// where they differ. Returns false when the lengths differ (digests all have 64 characters).
bool DigestsEqual(std::string_view a, std::string_view b);

// ACL GENPASS: bits of randomness from the kernel (getrandom) as ceil(bits/4) hex characters.
// bits must be in 1..4096; otherwise nullopt and the caller replies kGenPassError.
std::optional<std::string> GenPass(long bits = 256);
inline constexpr std::string_view kGenPassError =
    "ERR ACL GENPASS argument must be the number of bits for the output password, a positive "
    "number up to 4096";

}  // namespace ordis::acl
