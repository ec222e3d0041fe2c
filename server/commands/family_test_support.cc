#include "server/commands/family_test_support.h"

#include <stdlib.h>

#include <filesystem>

#include "base/clock.h"
#include "base/number.h"
#include "resp/out_buffer.h"
#include "resp/writer.h"
#include "server/command/client_state.h"
#include "server/config/config.h"
#include "server/server.h"

namespace ordis::server::test {
namespace {

Reply Make(Reply::Type type, std::string_view str = {}, int64_t integer = 0) {
  Reply r;
  r.type = type;
  r.str = std::string(str);
  r.integer = integer;
  return r;
}

// A RESP2/RESP3 reply decoder. hiredis has one, but Debian 12's hiredis (0.14) reads RESP2 only,
// and these tests check RESP3 replies too.
class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}
  bool done() const { return in_.empty(); }

  bool Next(Reply* out) {
    std::string_view line;
    if (in_.empty() || !Line(&line)) return false;
    const char type = line[0];
    line.remove_prefix(1);
    int64_t n = 0;
    switch (type) {
      case '+':
        *out = Make(Reply::Type::kStatus, line);
        return true;
      case '-':
        *out = Make(Reply::Type::kError, line);
        return true;
      case ':':
        if (!ParseInt64(line, &n)) return false;
        *out = Make(Reply::Type::kInteger, {}, n);
        return true;
      case ',':
        *out = Make(Reply::Type::kDouble, line);
        return true;
      case '(':
        *out = Make(Reply::Type::kBigNumber, line);
        return true;
      case '_':
        *out = Make(Reply::Type::kNil);
        return line.empty();
      case '#':
        if (line != "t" && line != "f") return false;
        *out = Make(Reply::Type::kBoolean, {}, line == "t" ? 1 : 0);
        return true;
      case '$':
      case '=': {
        if (!ParseInt64(line, &n) || n < -1) return false;
        if (n == -1) {
          *out = Make(Reply::Type::kNil);
          return type == '$';
        }
        const size_t len = static_cast<size_t>(n);
        if (in_.size() < len + 2 || in_.substr(len, 2) != "\r\n") return false;
        *out = Make(type == '$' ? Reply::Type::kBulk : Reply::Type::kVerbatim, in_.substr(0, len));
        in_.remove_prefix(len + 2);
        return true;
      }
      case '*':
      case '%':
      case '~':
      case '>': {
        if (!ParseInt64(line, &n) || n < -1) return false;
        if (n == -1) {
          *out = Make(Reply::Type::kNilArray);
          return type == '*';
        }
        const Reply::Type t = type == '*'   ? Reply::Type::kArray
                              : type == '%' ? Reply::Type::kMap
                              : type == '~' ? Reply::Type::kSet
                                            : Reply::Type::kPush;
        *out = Make(t);
        const int64_t count = type == '%' ? 2 * n : n;
        for (int64_t i = 0; i < count; ++i) {
          Reply element;
          if (!Next(&element)) return false;
          out->elements.push_back(std::move(element));
        }
        return true;
      }
      default:
        return false;
    }
  }

 private:
  bool Line(std::string_view* line) {
    const size_t end = in_.find("\r\n");
    if (end == std::string_view::npos || end == 0) return false;
    *line = in_.substr(0, end);
    in_.remove_prefix(end + 2);
    return true;
  }
  std::string_view in_;
};

std::string Drain(resp::OutBuffer& out) {
  std::string bytes;
  std::vector<iovec> iov(64);
  while (!out.empty()) {
    const int n = out.FillIovec(iov.data(), static_cast<int>(iov.size()));
    size_t taken = 0;
    for (int i = 0; i < n; ++i) {
      bytes.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
      taken += iov[i].iov_len;
    }
    out.Consume(taken);
  }
  return bytes;
}

void Print(const Reply& r, std::ostream* os) {
  using T = Reply::Type;
  auto list = [&](const char* open, const char* close, const char* between_pairs) {
    *os << open;
    for (size_t i = 0; i < r.elements.size(); ++i) {
      if (i > 0) *os << (between_pairs != nullptr && i % 2 == 1 ? between_pairs : ", ");
      Print(r.elements[i], os);
    }
    *os << close;
  };
  switch (r.type) {
    case T::kStatus:
      *os << r.str;
      break;
    case T::kError:
      *os << "(error) " << r.str;
      break;
    case T::kInteger:
      *os << "(integer) " << r.integer;
      break;
    case T::kBulk:
      *os << ::testing::PrintToString(r.str);
      break;
    case T::kNil:
      *os << "(nil)";
      break;
    case T::kNilArray:
      *os << "(nil array)";
      break;
    case T::kArray:
      list("[", "]", nullptr);
      break;
    case T::kMap:
      list("{", "}", ": ");
      break;
    case T::kSet:
      list("(set) [", "]", nullptr);
      break;
    case T::kPush:
      list("(push) [", "]", nullptr);
      break;
    case T::kDouble:
      *os << "(double) " << r.str;
      break;
    case T::kBoolean:
      *os << (r.integer != 0 ? "(true)" : "(false)");
      break;
    case T::kVerbatim:
      *os << "(verbatim) " << ::testing::PrintToString(r.str);
      break;
    case T::kBigNumber:
      *os << "(big number) " << r.str;
      break;
  }
}

}  // namespace

std::vector<std::string> Reply::Strings() const {
  std::vector<std::string> out;
  EXPECT_EQ(type, Type::kArray) << *this;
  for (const Reply& e : elements) {
    EXPECT_EQ(e.type, Type::kBulk) << e;
    out.push_back(e.str);
  }
  return out;
}

void PrintTo(const Reply& reply, std::ostream* os) { Print(reply, os); }
std::ostream& operator<<(std::ostream& os, const Reply& reply) {
  Print(reply, &os);
  return os;
}

Reply Ok() { return Status("OK"); }
Reply Status(std::string_view s) { return Make(Reply::Type::kStatus, s); }
Reply Err(std::string_view message) { return Make(Reply::Type::kError, message); }
Reply Int(int64_t v) { return Make(Reply::Type::kInteger, {}, v); }
Reply Bulk(std::string_view s) { return Make(Reply::Type::kBulk, s); }
Reply Nil() { return Make(Reply::Type::kNil); }
Reply NilArray() { return Make(Reply::Type::kNilArray); }
Reply Array(std::vector<Reply> elements) {
  Reply r = Make(Reply::Type::kArray);
  r.elements = std::move(elements);
  return r;
}
Reply Strings(std::vector<std::string> bulks) {
  Reply r = Make(Reply::Type::kArray);
  for (const std::string& s : bulks) r.elements.push_back(Bulk(s));
  return r;
}
Reply Map(std::vector<Reply> keys_and_values) {
  Reply r = Make(Reply::Type::kMap);
  r.elements = std::move(keys_and_values);
  return r;
}
Reply Set(std::vector<Reply> elements) {
  Reply r = Make(Reply::Type::kSet);
  r.elements = std::move(elements);
  return r;
}
Reply Double(std::string_view text) { return Make(Reply::Type::kDouble, text); }
Reply Boolean(bool b) { return Make(Reply::Type::kBoolean, {}, b ? 1 : 0); }

Reply DecodeReply(std::string_view bytes) {
  Decoder decoder(bytes);
  Reply reply;
  if (!decoder.Next(&reply) || !decoder.done()) {
    ADD_FAILURE() << "not one RESP reply: " << ::testing::PrintToString(std::string(bytes));
  }
  return reply;
}

std::vector<Reply> DecodeReplies(std::string_view bytes) {
  Decoder decoder(bytes);
  std::vector<Reply> replies;
  while (!decoder.done()) {
    Reply reply;
    if (!decoder.Next(&reply)) {
      ADD_FAILURE() << "not RESP replies: " << ::testing::PrintToString(std::string(bytes));
      break;
    }
    replies.push_back(std::move(reply));
  }
  return replies;
}

Reply Message(std::vector<std::string> parts) { return Strings(std::move(parts)); }

Reply PushMessage(std::vector<std::string> parts) {
  Reply r = Strings(std::move(parts));
  r.type = Reply::Type::kPush;
  return r;
}

Reply Subscribed(std::string_view verb, const char* channel, int64_t count, bool resp3) {
  Reply r = Array({Bulk(verb), channel != nullptr ? Bulk(channel) : Nil(), Int(count)});
  if (resp3) r.type = Reply::Type::kPush;
  return r;
}

// The server's parts a command needs, without its sockets and threads.
struct FamilyTest::Env {
  explicit Env(std::unique_ptr<Config> config)
      : server(std::move(config),
               [this] { return used_memory ? used_memory() : base::UsedMemory(); }) {
    persistence::Status status = server.LoadData();
    EXPECT_TRUE(status.ok()) << status.message();
  }
  std::function<uint64_t()> used_memory;  // FakeUsedMemory's
  Server server;
  // The I/O layer's view of the command layer: these tests open sessions and run commands the way
  // a connection on I/O thread 0 does.
  CommandSink& sink = server.TEST_command_sink();
  std::unique_ptr<CommandRunner> runner = sink.NewRunner(server.services().stats.thread(0));
};

namespace {

// Test clients live on no I/O thread: CLIENT KILL only sets their kill_requested flag.
struct NoThread final : ConnectionHost {
  void CloseConnection(uint64_t) override {}
  void DeliverPushes(uint64_t) override {}    // TestClient::TakeMessages takes them
  void Unblocked(uint64_t) override {}        // TestClient::Resume takes the reply
  void ResumePostponed(uint64_t) override {}  // a postponed command is not run again
};
NoThread no_thread;

}  // namespace

struct TestClient::Impl {
  Impl(CommandSink& s, CommandRunner& r)
      : sink(s), runner(r), session(s.NewSession()), writer(&out) {
    // The facts the I/O layer fills in at accept.
    static std::atomic<uint64_t> next_id{1};
    session->id = next_id.fetch_add(1, std::memory_order_relaxed);
    session->addr = "127.0.0.1:" + std::to_string(40000 + session->id);
    session->laddr = "127.0.0.1:6379";
    session->local = true;
    session->created_ms = NowMs();
    session->last_interaction_ms.store(session->created_ms, std::memory_order_relaxed);
    sink.SessionStarted(*session, &no_thread);
  }
  ~Impl() { sink.SessionEnded(*session); }
  CommandSink& sink;
  CommandRunner& runner;
  std::unique_ptr<Session> session;
  resp::OutBuffer out;
  resp::Writer writer;
};

TestClient::TestClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TestClient::~TestClient() = default;

ClientState& TestClient::state() { return static_cast<ClientState&>(*impl_->session); }

std::string TestClient::RunRaw(std::vector<std::string> args) {
  std::vector<std::string_view> views(args.begin(), args.end());
  impl_->runner.Run(*impl_->session, impl_->writer, views);
  impl_->runner.EndBatch();
  impl_->runner.EndTurn();
  return Drain(impl_->out);
}

std::vector<Reply> TestClient::RunAll(std::vector<std::string> args) {
  return DecodeReplies(RunRaw(std::move(args)));
}

bool TestClient::blocked() { return impl_->session->blocked.load(std::memory_order_relaxed); }

std::optional<Reply> TestClient::Resume(bool timed_out) {
  if (!impl_->runner.ResumeBlocked(*impl_->session, impl_->writer, timed_out)) return std::nullopt;
  const std::string bytes = Drain(impl_->out);
  return bytes.empty() ? Nil() : DecodeReply(bytes);
}

std::vector<Reply> TestClient::TakeMessages() {
  resp::OutBuffer out;
  if (impl_->session->pushes.Take(&out)) ADD_FAILURE() << "the client passed its output limit";
  return DecodeReplies(Drain(out));
}

Reply TestClient::Run(std::vector<std::string> args) {
  const std::string bytes = RunRaw(std::move(args));
  return bytes.empty() ? Nil() : DecodeReply(bytes);
}

FamilyTest::FamilyTest() : FamilyTest(std::vector<std::pair<std::string, std::string>>{}) {}

FamilyTest::FamilyTest(std::vector<std::pair<std::string, std::string>> config_params) {
  std::string tmpl = ::testing::TempDir() + "ordis_family_test_XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << tmpl;
  dir_ = tmpl;
  std::vector<std::string> argv_text = {"ordis-server", "--dir", dir_, "--save", ""};
  for (auto& [name, value] : config_params) {
    argv_text.push_back("--" + name);
    argv_text.push_back(value);
  }
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  auto config = std::make_unique<Config>();
  config->LoadCommandLine(static_cast<int>(argv.size()), argv.data());
  env_ = std::make_unique<Env>(std::move(config));
  NewClient();
}

FamilyTest::~FamilyTest() {
  clients_.clear();
  // The guard's background eviction may still run until the server stops: a fake reading the
  // test's members must not outlive them.
  FakeUsedMemory(nullptr);
  env_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

TestClient& FamilyTest::NewClient() {
  auto impl = std::make_unique<TestClient::Impl>(env_->sink, *env_->runner);
  clients_.push_back(std::unique_ptr<TestClient>(new TestClient(std::move(impl))));
  return *clients_.back();
}

void FamilyTest::CloseClient(TestClient& client) {
  std::erase_if(clients_, [&](const std::unique_ptr<TestClient>& c) { return c.get() == &client; });
}

Reply FamilyTest::WatchedExec(std::string_view key, std::vector<std::string> change) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"watch", std::string(key)}), Ok());
  other.Run(std::move(change));
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"ping"}), Status("QUEUED"));
  return Run({"exec"});
}

Keyspace& FamilyTest::keyspace() { return env_->server.keyspace(); }
Config& FamilyTest::config() { return env_->server.config(); }
void FamilyTest::FakeUsedMemory(std::function<uint64_t()> used) {
  std::unique_lock lock(keyspace().mu());  // the guard's background eviction reads it under it
  env_->used_memory = std::move(used);
}

std::vector<std::string> CommandWords(std::string_view name) {
  const size_t bar = name.find('|');
  if (bar == std::string_view::npos) return {std::string(name)};
  return {std::string(name.substr(0, bar)), std::string(name.substr(bar + 1))};
}

std::vector<std::string> TakeKeyEvents(TestClient& subscriber) {
  std::vector<std::string> out;
  for (const Reply& m : subscriber.TakeMessages()) {
    const std::vector<std::string> parts = m.Strings();
    out.push_back(parts[2].substr(parts[2].find("__:") + 3) + " " + parts[3]);
  }
  return out;
}

}  // namespace ordis::server::test
