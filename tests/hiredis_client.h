// hiredis for the tests that drive a real server (redis-compat/hiredis_test.cc,
// tests/connection_move_stress_test.cc): owned contexts and replies, and the calls they make.
#pragma once

#include <hiredis.h>
#include <sys/time.h>

#include <cstdarg>
#include <memory>
#include <string>

namespace ordis::test {

struct ContextDeleter {
  void operator()(redisContext* c) const { redisFree(c); }
};
using Context = std::unique_ptr<redisContext, ContextDeleter>;

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

// A connection to 127.0.0.1:port (check ->err), or nullptr if none could be allocated.
inline Context Connect(int port) {
  timeval tv{5, 0};
  Context c(redisConnectWithTimeout("127.0.0.1", port, tv));
  if (c && !c->err) redisSetTimeout(c.get(), timeval{30, 0});  // a hang fails instead of blocking
  return c;
}

// redisCommand's reply, or nullptr when the connection failed.
inline Reply Command(redisContext* c, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  void* r = redisvCommand(c, format, ap);
  va_end(ap);
  return Reply(static_cast<redisReply*>(r));
}

// The next reply of a pipeline, or nullptr when the connection failed or closed.
inline Reply GetReply(redisContext* c) {
  void* r = nullptr;
  if (redisGetReply(c, &r) != REDIS_OK) return nullptr;
  return Reply(static_cast<redisReply*>(r));
}

inline std::string Str(const redisReply* r) { return std::string(r->str, r->len); }

}  // namespace ordis::test
