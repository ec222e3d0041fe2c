// blocking_bench: blocked clients served by pushes, against any RESP server (bench/vs-redis.sh
// blocking runs it against ordis and redis-server alike). Plain sockets, one thread per connection,
// every command unpipelined, so both servers see the same clients doing the same thing.
//
//   blocking_bench PORT pingpong PAIRS SECONDS
//     PAIRS pairs of connections A and B. A: LPUSH ping:i x, then BRPOP pong:i 0; B: BRPOP ping:i 0,
//     then LPUSH pong:i x. A round trip is A's LPUSH until A's BRPOP answers (each side blocks
//     in turn: two blocked clients served per round trip); its latency is timed by A.
//   blocking_bench PORT bzpopmin WAITERS PRODUCERS SECONDS
//     WAITERS connections in BZPOPMIN z 1 loops; PRODUCERS connections ZADD z <seq> p<id>:<seq>,
//     one at a time (so the waiters are mostly blocked when a member arrives); an operation is a
//     ZADD, its latency the ZADD's round trip. At the end every member added must have been popped
//     (else it exits 1).
//
// Prints one line: operations per second over the measured window, p50 and p99 latency in
// microseconds over the window, and the operations of the whole run (warm-up and drain included:
// what the server's CPU over the run is divided by). A warm-up of 0.3 s comes before the window.
// Exits 1 on an error reply or a closed connection.
//
// Build: cc -O2 -pthread -o blocking_bench bench/blocking_bench.c
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int g_port;
static atomic_int g_measuring;  // inside the measured window
static atomic_int g_stop;       // the run is over: wind down

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char* what) {
  fprintf(stderr, "blocking_bench: %s\n", what);
  exit(1);
}

// ---- a connection with a read buffer ------------------------------------------------------------

typedef struct {
  int fd;
  char buf[1 << 16];
  size_t pos, len;
} Conn;

static Conn* conn_open(void) {
  Conn* c = calloc(1, sizeof(Conn));
  c->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g_port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (c->fd < 0 || connect(c->fd, (struct sockaddr*)&a, sizeof a) != 0) die("cannot connect");
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return c;
}

static void conn_close(Conn* c) {
  close(c->fd);
  free(c);
}

static void send_all(Conn* c, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = send(c->fd, data, n, MSG_NOSIGNAL);
    if (w <= 0) die("send failed");
    data += w;
    n -= (size_t)w;
  }
}

// A RESP command of argc arguments.
static void send_command(Conn* c, int argc, const char** argv) {
  char out[1024];
  size_t n = (size_t)snprintf(out, sizeof out, "*%d\r\n", argc);
  for (int i = 0; i < argc; i++) {
    n += (size_t)snprintf(out + n, sizeof out - n, "$%zu\r\n%s\r\n", strlen(argv[i]), argv[i]);
  }
  if (n >= sizeof out) die("command too long");
  send_all(c, out, n);
}

static void fill(Conn* c) {
  if (c->pos == c->len) {
    c->pos = c->len = 0;
  } else if (c->len == sizeof c->buf) {
    memmove(c->buf, c->buf + c->pos, c->len - c->pos);
    c->len -= c->pos;
    c->pos = 0;
  }
  ssize_t r = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
  if (r <= 0) die("connection closed by the server");
  c->len += (size_t)r;
}

// The next line without its CRLF, NUL-terminated in place (valid until the next read).
static char* read_line(Conn* c) {
  for (;;) {
    char* start = c->buf + c->pos;
    char* end = memchr(start, '\n', c->len - c->pos);
    if (end != NULL && end > start && end[-1] == '\r') {
      end[-1] = '\0';
      c->pos = (size_t)(end - c->buf) + 1;
      return start;
    }
    fill(c);
  }
}

// Reads one reply. Returns 1 if it is a null (*-1, $-1, _), 0 otherwise; an error reply exits.
// The last bulk string read (if any) is copied into last (size last_size).
static int read_reply(Conn* c, char* last, size_t last_size) {
  char* line = read_line(c);
  long long n = atoll(line + 1);
  switch (line[0]) {
    case '-':
    case '!':
      fprintf(stderr, "blocking_bench: error reply: %s\n", line);
      exit(1);
    case '_':
      return 1;
    case '*':
    case '%':
    case '~':
      if (n < 0) return 1;
      if (line[0] == '%') n *= 2;
      for (long long i = 0; i < n; i++) read_reply(c, last, last_size);
      return 0;
    case '$':
      if (n < 0) return 1;
      while (c->len - c->pos < (size_t)n + 2) fill(c);
      if (last != NULL) {
        size_t k = (size_t)n < last_size - 1 ? (size_t)n : last_size - 1;
        memcpy(last, c->buf + c->pos, k);
        last[k] = '\0';
      }
      c->pos += (size_t)n + 2;
      return 0;
    default:  // + : , # ( and the like: one line
      return 0;
  }
}

// ---- latencies ----------------------------------------------------------------------------------

typedef struct {
  double* v;
  size_t n, cap;
  long long ops;  // in the whole run
  long long window_ops;
} Samples;

static void record(Samples* s, double t0, double t1, int measuring) {
  s->ops++;
  if (!measuring) return;
  s->window_ops++;
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1 << 16;
    s->v = realloc(s->v, s->cap * sizeof(double));
    if (s->v == NULL) die("out of memory");
  }
  s->v[s->n++] = t1 - t0;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

// ---- pingpong -----------------------------------------------------------------------------------

typedef struct {
  int id;
  Samples s;
} PairArg;

static void* pinger(void* p) {
  PairArg* a = p;
  Conn* c = conn_open();
  char ping[32], pong[32];
  snprintf(ping, sizeof ping, "ping:%d", a->id);
  snprintf(pong, sizeof pong, "pong:%d", a->id);
  const char* lpush[] = {"LPUSH", ping, "x"};
  const char* brpop[] = {"BRPOP", pong, "0"};
  while (!atomic_load(&g_stop)) {
    int measuring = atomic_load(&g_measuring);
    double t0 = now_s();
    send_command(c, 3, lpush);
    read_reply(c, NULL, 0);
    send_command(c, 3, brpop);
    if (read_reply(c, NULL, 0)) die("BRPOP 0 answered null");
    record(&a->s, t0, now_s(), measuring);
  }
  const char* quit[] = {"LPUSH", ping, "stop"};  // the ponger leaves
  send_command(c, 3, quit);
  read_reply(c, NULL, 0);
  conn_close(c);
  return NULL;
}

static void* ponger(void* p) {
  PairArg* a = p;
  Conn* c = conn_open();
  char ping[32], pong[32], value[16];
  snprintf(ping, sizeof ping, "ping:%d", a->id);
  snprintf(pong, sizeof pong, "pong:%d", a->id);
  const char* brpop[] = {"BRPOP", ping, "0"};
  const char* lpush[] = {"LPUSH", pong, "x"};
  for (;;) {
    send_command(c, 3, brpop);
    if (read_reply(c, value, sizeof value)) die("BRPOP 0 answered null");
    if (strcmp(value, "stop") == 0) break;
    send_command(c, 3, lpush);
    read_reply(c, NULL, 0);
  }
  conn_close(c);
  return NULL;
}

// ---- bzpopmin -----------------------------------------------------------------------------------

static atomic_llong g_pops;

static void* waiter(void* p) {
  (void)p;
  Conn* c = conn_open();
  const char* bz[] = {"BZPOPMIN", "z", "1"};
  for (;;) {
    send_command(c, 3, bz);
    if (read_reply(c, NULL, 0)) {
      if (atomic_load(&g_stop)) break;  // timed out after the producers stopped: drained
      continue;
    }
    atomic_fetch_add(&g_pops, 1);
  }
  conn_close(c);
  return NULL;
}

static void* producer(void* p) {
  PairArg* a = p;
  Conn* c = conn_open();
  char score[32], member[48];
  const char* zadd[] = {"ZADD", "z", score, member};
  for (long long seq = 0; !atomic_load(&g_stop); seq++) {
    int measuring = atomic_load(&g_measuring);
    snprintf(score, sizeof score, "%lld", seq);
    snprintf(member, sizeof member, "p%d:%lld", a->id, seq);
    double t0 = now_s();
    send_command(c, 4, zadd);
    read_reply(c, NULL, 0);
    record(&a->s, t0, now_s(), measuring);
  }
  conn_close(c);
  return NULL;
}

// ---- main ---------------------------------------------------------------------------------------

int main(int argc, char** argv) {
  int pingpong = argc == 5 && strcmp(argv[2], "pingpong") == 0;
  if (!pingpong && !(argc == 6 && strcmp(argv[2], "bzpopmin") == 0)) {
    fprintf(stderr,
            "usage: %s PORT pingpong PAIRS SECONDS | PORT bzpopmin WAITERS PRODUCERS SECONDS\n",
            argv[0]);
    return 2;
  }
  g_port = atoi(argv[1]);
  int n1 = atoi(argv[3]);
  int n2 = pingpong ? n1 : atoi(argv[4]);
  double seconds = atof(argv[argc - 1]);
  if (n1 < 1 || n2 < 1 || seconds <= 0) die("bad arguments");

  // Timed threads (pingers or producers) and the others (pongers or waiters).
  PairArg* timed = calloc((size_t)n2, sizeof(PairArg));
  pthread_t* timed_t = calloc((size_t)n2, sizeof(pthread_t));
  PairArg* other = calloc((size_t)n1, sizeof(PairArg));
  pthread_t* other_t = calloc((size_t)n1, sizeof(pthread_t));
  for (int i = 0; i < n1; i++) {
    other[i].id = i;
    pthread_create(&other_t[i], NULL, pingpong ? ponger : waiter, &other[i]);
  }
  if (!pingpong) {
    // The waiters block before the first member arrives.
    usleep(200 * 1000);
  }
  for (int i = 0; i < n2; i++) {
    timed[i].id = i;
    pthread_create(&timed_t[i], NULL, pingpong ? pinger : producer, &timed[i]);
  }
  usleep(300 * 1000);  // warm-up
  atomic_store(&g_measuring, 1);
  double start = now_s();
  usleep((useconds_t)(seconds * 1e6));
  atomic_store(&g_measuring, 0);
  double elapsed = now_s() - start;
  atomic_store(&g_stop, 1);
  for (int i = 0; i < n2; i++) pthread_join(timed_t[i], NULL);
  for (int i = 0; i < n1; i++) pthread_join(other_t[i], NULL);

  long long ops = 0, window_ops = 0;
  size_t n = 0;
  for (int i = 0; i < n2; i++) n += timed[i].s.n;
  if (n == 0) die("no operation in the window");
  double* v = malloc(n * sizeof(double));
  n = 0;
  for (int i = 0; i < n2; i++) {
    const Samples* s = &timed[i].s;
    ops += s->ops;
    window_ops += s->window_ops;
    memcpy(v + n, s->v, s->n * sizeof(double));
    n += s->n;
  }
  if (!pingpong && atomic_load(&g_pops) != ops) {
    fprintf(stderr, "blocking_bench: %lld members added, %lld popped\n", ops,
            (long long)atomic_load(&g_pops));
    return 1;
  }
  qsort(v, n, sizeof(double), cmp_double);
  double p50 = v[n / 2] * 1e6;
  double p99 = v[(size_t)((double)n * 0.99)] * 1e6;
  printf("%.0f %.1f %.1f %lld\n", (double)window_ops / elapsed, p50, p99, ops);
  return 0;
}
