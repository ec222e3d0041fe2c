// skew_load: closed-loop GETs over a skewed key distribution (Zipf, or a hot set), the same stream
// against any server speaking RESP, to compare ordis with a disk tier, ordis all in memory and
// redis-server: what a tier costs depends on how often the hot set misses memory, so the stream
// must be skewed, and the hit count says whether the keys were loaded at all.
//
//   build-bench/bench/skew_load --port P --keys N [--zipf 0.99 | --hot 0.1:0.9] [--connections 50]
//                               [--pipeline 1] [--requests 200000] [--threads 1] [--seed 1]
//                               [--key-seed 1]
//
// Keys are `key:%012d` for i in [0, N), loaded beforehand (N at most 10^12). A rank in [0, N) is
// drawn from Zipf(s) by rejection-inversion (Hormann and Derflinger: O(1), no table; s = 0 is
// uniform), or with --hot F:S from a hot set (share S of the requests uniform over the first F of
// the ranks, the rest uniform over the others: a hot set of a known size, which fits in memory or
// not), and mapped to a key id through a fixed pseudo-random permutation of [0, N) (a Feistel
// network with cycle walking, keyed by --key-seed), so the hot keys are spread over the keyspace
// rather than being keys 0..k, which an ordered tier would keep together. 127.0.0.1 only; the
// connections are shared out over the threads, each thread drives its own with epoll, and each
// connection keeps `pipeline` GETs in flight, a reply sending the next, until `requests` in all.
// A request's latency runs from when it is queued to write to when its reply is parsed (one clock
// reading per recv for all the replies it completes), into a log-linear histogram of nanoseconds
// (64 buckets per power of 2, so under 1.6% wide).
// Prints one line of key=value: requests, seconds, rps, hits (values), misses (nulls), errors
// (error replies), and p50, p99, p99.9 and max latency in microseconds (bucket midpoints).
//
// Hand-written rather than redis-benchmark: that has no skewed key distribution (-r is uniform)
// and reports no hit or miss counts.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "skew_load: %s\n", what);
  std::_Exit(1);
}

[[noreturn]] void DieErrno(const char* what) {
  std::fprintf(stderr, "skew_load: %s: %s\n", what, std::strerror(errno));
  std::_Exit(1);
}

struct Options {
  int port = 0;
  uint64_t keys = 0;
  double zipf = 0.99;
  double hot_keys = 0;   // --hot: the hot set's fraction of the keys (0: Zipf)
  double hot_share = 0;  // and its share of the requests
  uint64_t connections = 50;
  uint64_t pipeline = 1;
  uint64_t requests = 200000;
  uint64_t threads = 1;
  uint64_t seed = 1;      // the requests' draws
  uint64_t key_seed = 1;  // which keys are hot: the same across runs that differ in --seed
};

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Rng {  // splitmix64
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return Mix(state_ += 0x9e3779b97f4a7c15ULL); }
  double Double() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }

 private:
  uint64_t state_;
};

// Zipf over ranks [0, n): P(rank k) proportional to 1 / (k + 1)^s. Rejection-inversion as in
// Apache Commons RNG's RejectionInversionZipfSampler; accepts within a few tries for any s > 0.
class Zipf {
 public:
  Zipf(uint64_t n, double s) : n_(n), s_(s) {
    if (s_ == 0) return;
    h_x1_ = HIntegral(1.5) - 1;
    h_n_ = HIntegral(static_cast<double>(n_) + 0.5);
    cut_ = 2 - HIntegralInverse(HIntegral(2.5) - H(2));
  }

  uint64_t Rank(Rng& rng) const {
    if (s_ == 0) return rng.Below(n_);
    for (;;) {
      const double u = h_n_ + rng.Double() * (h_x1_ - h_n_);  // in (h_x1_, h_n_]
      const double x = HIntegralInverse(u);
      const double kd = std::clamp(std::floor(x + 0.5), 1.0, static_cast<double>(n_));
      const uint64_t k = static_cast<uint64_t>(kd);
      if (kd - x <= cut_ || u >= HIntegral(kd + 0.5) - H(kd)) return k - 1;
    }
  }

 private:
  static double Helper1(double x) {  // log1p(x) / x
    return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
  }
  static double Helper2(double x) {  // expm1(x) / x
    return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
  }
  double H(double x) const { return std::exp(-s_ * std::log(x)); }
  double HIntegral(double x) const {
    const double log_x = std::log(x);
    return Helper2((1 - s_) * log_x) * log_x;
  }
  double HIntegralInverse(double x) const {
    const double t = std::max(x * (1 - s_), -1.0);
    return std::exp(Helper1(t) * x);
  }

  uint64_t n_;
  double s_;
  double h_x1_ = 0, h_n_ = 0, cut_ = 0;
};

// The rank of each request: Zipf, or a hot set.
class Ranks {
 public:
  explicit Ranks(const Options& opt)
      : zipf_(opt.keys, opt.zipf),
        n_(opt.keys),
        hot_(static_cast<uint64_t>(opt.hot_keys * static_cast<double>(opt.keys))),
        hot_share_(opt.hot_share) {}

  uint64_t Rank(Rng& rng) const {
    if (hot_ == 0 || hot_ >= n_) return zipf_.Rank(rng);
    return rng.Double() < hot_share_ ? rng.Below(hot_) : hot_ + rng.Below(n_ - hot_);
  }

 private:
  Zipf zipf_;
  uint64_t n_;
  uint64_t hot_;
  double hot_share_;
};

// A bijection of [0, n): a 4-round Feistel network on the smallest even number of bits covering n
// (at most 4n values), applied again while the result is >= n (cycle walking).
class Permutation {
 public:
  Permutation(uint64_t n, uint64_t seed) : n_(n) {
    const int bits = std::max(2, static_cast<int>(std::bit_width(n - 1)));
    half_ = (bits + 1) / 2;
    mask_ = (uint64_t{1} << half_) - 1;
    for (int r = 0; r < 4; ++r) round_keys_[r] = Mix(seed * 4 + r + 1);
  }

  uint64_t operator()(uint64_t x) const {
    do {
      x = Encrypt(x);
    } while (x >= n_);
    return x;
  }

 private:
  uint64_t Encrypt(uint64_t x) const {
    uint64_t left = x >> half_, right = x & mask_;
    for (uint64_t key : round_keys_) {
      const uint64_t next = left ^ (Mix(right ^ key) & mask_);
      left = right;
      right = next;
    }
    return (left << half_) | right;
  }

  uint64_t n_;
  int half_;
  uint64_t mask_;
  uint64_t round_keys_[4];
};

// Log-linear histogram: values below 128 exact, above that 64 buckets per power of 2.
class Histogram {
 public:
  Histogram() : counts_(64 * 59) {}

  void Record(int64_t ns) {
    const uint64_t v = ns < 0 ? 0 : static_cast<uint64_t>(ns);
    ++counts_[Index(v)];
    ++total_;
    max_ = std::max(max_, v);
  }

  void Merge(const Histogram& other) {
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
    total_ += other.total_;
    max_ = std::max(max_, other.max_);
  }

  // The midpoint of the bucket holding the q-th quantile, no more than the maximum.
  double Quantile(double q) const {
    if (total_ == 0) return 0;
    const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * total_)));
    uint64_t seen = 0;
    for (size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen < rank) continue;
      if (i < 128) return std::min<double>(i, max_);
      const int shift = static_cast<int>(i / 64) - 1;
      const uint64_t low = (i - 64 * shift) << shift;
      return std::min<double>(low + ((uint64_t{1} << shift) - 1) / 2.0, max_);
    }
    return max_;
  }

  uint64_t max() const { return max_; }

 private:
  static size_t Index(uint64_t v) {
    if (v < 128) return v;
    const int shift = std::bit_width(v) - 7;  // v >> shift is in [64, 128)
    return 64 * shift + (v >> shift);
  }

  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
  uint64_t max_ = 0;
};

constexpr char kGet[] = "*2\r\n$3\r\nGET\r\n$16\r\nkey:000000000000\r\n";
constexpr size_t kGetLen = sizeof(kGet) - 1;
constexpr size_t kDigitsEnd = kGetLen - 2;  // the key's 12 digits end before the final CRLF

struct Conn {
  int fd = -1;
  std::string out;  // requests not yet written, from out_pos
  size_t out_pos = 0;
  bool want_out = false;  // registered for EPOLLOUT
  std::unique_ptr<char[]> in;
  size_t in_cap = 0, in_len = 0;
  uint64_t skip = 0;          // > 0: inside a bulk string's payload and CRLF, this many bytes to go
  std::vector<int64_t> sent;  // ring of the in-flight requests' queue times, oldest at head
  size_t head = 0, count = 0;
};

class Worker {
 public:
  Worker(const Options& opt, const Ranks& ranks, const Permutation& perm, uint64_t conns,
         uint64_t quota, uint64_t seed)
      : opt_(opt), ranks_(ranks), perm_(perm), rng_(seed), quota_(quota), conns_(conns) {}

  void Connect() {
    ep_ = epoll_create1(0);
    if (ep_ < 0) DieErrno("epoll_create1");
    for (uint32_t i = 0; i < conns_.size(); ++i) {
      Conn& c = conns_[i];
      c.fd = socket(AF_INET, SOCK_STREAM, 0);
      if (c.fd < 0) DieErrno("socket");
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<uint16_t>(opt_.port));
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (connect(c.fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0) DieErrno("connect");
      const int one = 1;
      setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      if (fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK) < 0) DieErrno("fcntl");
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u32 = i;
      if (epoll_ctl(ep_, EPOLL_CTL_ADD, c.fd, &ev) < 0) DieErrno("epoll_ctl");
      c.in_cap = 256 << 10;
      c.in.reset(new char[c.in_cap]);
      c.sent.resize(opt_.pipeline);
    }
  }

  void Run() {
    start_ns_ = NowNs();
    for (Conn& c : conns_) {
      Issue(c, std::min(opt_.pipeline, quota_ - issued_), start_ns_);
      Flush(c);
    }
    epoll_event events[64];
    while (done_ < quota_) {
      const int n = epoll_wait(ep_, events, 64, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        DieErrno("epoll_wait");
      }
      for (int i = 0; i < n; ++i) {
        Conn& c = conns_[events[i].data.u32];
        if (events[i].events & EPOLLOUT) Flush(c);
        if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) Read(c);
      }
    }
    end_ns_ = NowNs();
    for (Conn& c : conns_) close(c.fd);
    close(ep_);
  }

  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t errors() const { return errors_; }
  const Histogram& histogram() const { return hist_; }

 private:
  enum class Reply { kHit, kMiss, kError };

  void Issue(Conn& c, uint64_t n, int64_t now) {
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t id = perm_(ranks_.Rank(rng_));
      const size_t at = c.out.size();
      c.out.append(kGet, kGetLen);
      char* digit = c.out.data() + at + kDigitsEnd;
      for (int d = 0; d < 12; ++d, id /= 10) *--digit = static_cast<char>('0' + id % 10);
      c.sent[(c.head + c.count++) % c.sent.size()] = now;
    }
    issued_ += n;
  }

  void Flush(Conn& c) {
    while (c.out_pos < c.out.size()) {
      const ssize_t w =
          send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
      if (w > 0) {
        c.out_pos += w;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        break;
      } else if (errno != EINTR) {
        DieErrno("send");
      }
    }
    if (c.out_pos == c.out.size()) {
      c.out.clear();
      c.out_pos = 0;
    }
    const bool want = !c.out.empty();
    if (want != c.want_out) {
      epoll_event ev{};
      ev.events = want ? EPOLLIN | EPOLLOUT : EPOLLIN;
      ev.data.u32 = static_cast<uint32_t>(&c - conns_.data());
      if (epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev) < 0) DieErrno("epoll_ctl");
      c.want_out = want;
    }
  }

  void Read(Conn& c) {
    for (;;) {
      if (c.in_len == c.in_cap) {  // a header line longer than the buffer
        std::unique_ptr<char[]> bigger(new char[c.in_cap * 2]);
        std::memcpy(bigger.get(), c.in.get(), c.in_len);
        c.in = std::move(bigger);
        c.in_cap *= 2;
      }
      const size_t room = c.in_cap - c.in_len;
      const ssize_t r = recv(c.fd, c.in.get() + c.in_len, room, 0);
      if (r < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        if (errno == EINTR) continue;
        DieErrno("recv");
      }
      if (r == 0) Die("the server closed a connection");
      c.in_len += r;
      Parse(c, NowNs());
      Issue(c, std::min(opt_.pipeline - c.count, quota_ - issued_), NowNs());
      Flush(c);
      if (static_cast<size_t>(r) < room) break;  // drained, most likely; epoll says if not
    }
  }

  // Consumes every complete reply in c.in, and a bulk payload's bytes as they come.
  void Parse(Conn& c, int64_t now) {
    const char* buf = c.in.get();
    size_t pos = 0;
    while (pos < c.in_len) {
      if (c.skip > 0) {
        const size_t take = std::min<uint64_t>(c.skip, c.in_len - pos);
        // The payload's last two bytes, at 2 and 1 to go, are its CRLF.
        for (uint64_t left = std::min<uint64_t>(c.skip, 2); left > c.skip - take; --left) {
          if (buf[pos + (c.skip - left)] != (left == 2 ? '\r' : '\n')) {
            Die("protocol error: a bulk string not ended by CRLF");
          }
        }
        pos += take;
        c.skip -= take;
        if (c.skip == 0) Complete(c, Reply::kHit, now);
        continue;
      }
      const char* line = buf + pos;
      const char* nl = static_cast<const char*>(std::memchr(line, '\n', c.in_len - pos));
      if (nl == nullptr) break;
      if (nl - line < 2 || nl[-1] != '\r') Die("protocol error: a reply line not ended by CRLF");
      if (line[0] == '$') {
        char* end;
        const long long len = std::strtoll(line + 1, &end, 10);
        if (end != nl - 1 || end == line + 1 || len < -1) Die("protocol error: bad bulk length");
        if (len == -1) {
          Complete(c, Reply::kMiss, now);
        } else {
          c.skip = static_cast<uint64_t>(len) + 2;
        }
      } else if (line[0] == '-') {
        Complete(c, Reply::kError, now);
      } else {
        Die("protocol error: a GET reply neither a bulk string nor an error");
      }
      pos = nl + 1 - buf;
    }
    c.in_len -= pos;
    if (c.in_len > 0) std::memmove(c.in.get(), buf + pos, c.in_len);
  }

  void Complete(Conn& c, Reply reply, int64_t now) {
    if (c.count == 0) Die("protocol error: a reply with no request in flight");
    hist_.Record(now - c.sent[c.head]);
    c.head = (c.head + 1) % c.sent.size();
    --c.count;
    ++done_;
    switch (reply) {
      case Reply::kHit:
        ++hits_;
        break;
      case Reply::kMiss:
        ++misses_;
        break;
      case Reply::kError:
        ++errors_;
        break;
    }
  }

  const Options& opt_;
  const Ranks& ranks_;
  const Permutation& perm_;
  Rng rng_;
  uint64_t quota_, issued_ = 0, done_ = 0;
  uint64_t hits_ = 0, misses_ = 0, errors_ = 0;
  Histogram hist_;
  std::vector<Conn> conns_;
  int ep_ = -1;
  int64_t start_ns_ = 0, end_ns_ = 0;
};

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: skew_load --port P --keys N [--zipf S | --hot F:S] [--connections C]\n"
               "                 [--pipeline K] [--requests R] [--threads T] [--seed X]\n"
               "                 [--key-seed Y]\n");
  std::exit(2);
}

uint64_t ParseU64(const char* name, const char* v, uint64_t min) {
  char* end;
  errno = 0;
  const unsigned long long x = std::strtoull(v, &end, 10);
  if (*v == '\0' || *v == '-' || *end != '\0' || errno != 0 || x < min) {
    std::fprintf(stderr, "skew_load: bad %s: %s\n", name, v);
    Usage();
  }
  return x;
}

Options ParseArgs(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; i += 2) {
    const std::string name = argv[i];
    if (i + 1 >= argc) Usage();
    const char* v = argv[i + 1];
    if (name == "--port") {
      opt.port = static_cast<int>(ParseU64("--port", v, 1));
      if (opt.port > 65535) Usage();
    } else if (name == "--keys") {
      opt.keys = ParseU64("--keys", v, 1);
      if (opt.keys > 1000000000000ULL) Usage();  // ids have at most 12 digits
    } else if (name == "--zipf") {
      char* end;
      opt.zipf = std::strtod(v, &end);
      if (*v == '\0' || *end != '\0' || !std::isfinite(opt.zipf) || opt.zipf < 0) Usage();
    } else if (name == "--hot") {
      // F:S, both in (0, 1): a fraction F of the keys takes a share S of the requests.
      char* end;
      opt.hot_keys = std::strtod(v, &end);
      if (end == v || *end != ':') Usage();
      const char* share = end + 1;
      opt.hot_share = std::strtod(share, &end);
      if (*share == '\0' || *end != '\0' || !(opt.hot_keys > 0 && opt.hot_keys < 1) ||
          !(opt.hot_share > 0 && opt.hot_share < 1)) {
        Usage();
      }
    } else if (name == "--connections") {
      opt.connections = ParseU64("--connections", v, 1);
    } else if (name == "--pipeline") {
      opt.pipeline = ParseU64("--pipeline", v, 1);
    } else if (name == "--requests") {
      opt.requests = ParseU64("--requests", v, 1);
    } else if (name == "--threads") {
      opt.threads = ParseU64("--threads", v, 1);
    } else if (name == "--seed") {
      opt.seed = ParseU64("--seed", v, 0);
    } else if (name == "--key-seed") {
      opt.key_seed = ParseU64("--key-seed", v, 0);
    } else {
      Usage();
    }
  }
  if (opt.port == 0 || opt.keys == 0) Usage();
  opt.threads = std::min(opt.threads, opt.connections);
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = ParseArgs(argc, argv);
  const Ranks ranks(opt);
  const Permutation perm(opt.keys, opt.key_seed);

  // Thread t gets connections [C t / T, C (t + 1) / T) and the requests in proportion.
  std::vector<std::unique_ptr<Worker>> workers;
  for (uint64_t t = 0; t < opt.threads; ++t) {
    const uint64_t c0 = opt.connections * t / opt.threads;
    const uint64_t c1 = opt.connections * (t + 1) / opt.threads;
    const auto share = [&](uint64_t c) {
      return static_cast<uint64_t>(static_cast<unsigned __int128>(opt.requests) * c /
                                   opt.connections);
    };
    workers.push_back(std::make_unique<Worker>(opt, ranks, perm, c1 - c0, share(c1) - share(c0),
                                               Mix(opt.seed ^ (0x5eed0000 + t))));
  }
  std::latch connected(static_cast<ptrdiff_t>(workers.size()));
  std::vector<std::thread> threads;
  for (auto& w : workers) {
    threads.emplace_back([&w, &connected] {
      w->Connect();
      connected.arrive_and_wait();
      w->Run();
    });
  }
  for (auto& t : threads) t.join();

  int64_t start = workers[0]->start_ns(), end = workers[0]->end_ns();
  uint64_t hits = 0, misses = 0, errors = 0;
  Histogram hist;
  for (auto& w : workers) {
    start = std::min(start, w->start_ns());
    end = std::max(end, w->end_ns());
    hits += w->hits();
    misses += w->misses();
    errors += w->errors();
    hist.Merge(w->histogram());
  }
  const double seconds = (end - start) / 1e9;
  std::printf(
      "requests=%llu seconds=%.3f rps=%.0f hits=%llu misses=%llu errors=%llu p50_us=%.0f "
      "p99_us=%.0f p999_us=%.0f max_us=%.0f\n",
      static_cast<unsigned long long>(opt.requests), seconds, opt.requests / seconds,
      static_cast<unsigned long long>(hits), static_cast<unsigned long long>(misses),
      static_cast<unsigned long long>(errors), hist.Quantile(0.50) / 1e3, hist.Quantile(0.99) / 1e3,
      hist.Quantile(0.999) / 1e3, hist.max() / 1e3);
  return 0;
}
