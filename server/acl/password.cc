#include "server/acl/password.h"

#include <openssl/evp.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace ordis::acl {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void FillRandom(unsigned char* buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = getrandom(buf + done, len - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::perror("getrandom");  // no entropy source: nothing safe to hand out
      std::abort();
    }
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string HashPassword(std::string_view password) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(password.data(), password.size(), digest, &len, EVP_sha256(), nullptr);
  std::string hex(2 * len, '\0');
  for (unsigned i = 0; i < len; i++) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  return hex;
}

bool IsPasswordHash(std::string_view hash) {
  if (hash.size() != 64) return false;
  for (char c : hash) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool DigestsEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  // volatile: keeps the compiler from turning the loop into an early-exit memcmp.
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); i++) {
    diff = diff | static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

std::optional<std::string> GenPass(long bits) {
  if (bits <= 0 || bits > 4096) return std::nullopt;
  size_t chars = static_cast<size_t>((bits + 3) / 4);
  unsigned char raw[512];
  FillRandom(raw, (chars + 1) / 2);
  std::string out(chars, '\0');
  for (size_t i = 0; i < chars; i++) {
    unsigned char byte = raw[i / 2];
    out[i] = kHex[(i % 2 == 0) ? (byte >> 4) : (byte & 15)];
  }
  return out;
}

}  // namespace ordis::acl
