#include "server/server.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "base/clock.h"
#include "base/logging.h"
#include "index/learned_store.h"
#include "offload/dpdk.h"
#include "offload/host_view.h"
#include "server/command/acl_bridge.h"
#include "server/commands/families.h"
#include "server/durability/object_codec.h"

namespace ordis::server {
namespace {

// The store behind the keyspace, from the start-up only `index` parameters.
std::unique_ptr<index::OrderedStore> NewIndexStore(const Config& config) {
  if (!config.learned_index()) return index::NewMapStore();
  return index::NewLearnedStore(config.learned_store_options());
}

// The users: the default one (with requirepass as its password), then the config file's user lines
// or the ACL file (not both, as Redis). *error gets what stops the start.
std::unique_ptr<acl::Users> NewUsers(const Config& config, std::string* error) {
  auto users = std::make_unique<acl::Users>(BuildAclCatalog(AllCommands()),
                                            config.Value("acl-pubsub-default") == "allchannels");
  users->SetRequirePass(config.Value("requirepass"));
  if (!error->empty()) return users;
  const std::vector<std::vector<std::string>> lines = config.user_directives();
  const std::string aclfile = config.Value("aclfile");
  if (!lines.empty() && !aclfile.empty()) {
    *error =
        "Configuring Redis with users defined in redis.conf and at the same setting an ACL file "
        "path is invalid. This setup is very likely to lead to configuration errors and security "
        "holes, please define either an ACL file or declare users directly in your redis.conf, "
        "but not both.";
    return users;
  }
  for (const std::vector<std::string>& line : lines) {
    *error = users->ParseUserDirective(line);
    if (!error->empty()) return users;
  }
  *error = aclfile.empty() ? users->LoadConfiguredUsers() : users->LoadFile(aclfile);
  return users;
}

}  // namespace

// The Host View's room: keys known resident beyond it are asked of the index (correct, slower).
// rte_hash takes about 40 bytes a key of DPDK's heap, which is outside maxmemory.
constexpr uint32_t kHostViewKeys = 4u << 20;
constexpr int kDpdkMemoryMb = 256;

void Server::OpenTier() {
  const std::string dir = config_->Value("tier-dir");
  if (dir.empty()) return;
  offload::TierStoreOptions options;
  options.dir = dir;
  options.segment_bytes = ColdTier::kSegmentBytes;
  const uint64_t max_bytes = std::stoull(config_->Value("tier-max-size"));
  options.max_bytes =
      max_bytes / ColdTier::kSegmentBytes * ColdTier::kSegmentBytes;  // at least one
  std::unique_ptr<offload::TierStore> store;
  const persistence::Status status = offload::TierStore::Open(options, &store);
  if (!status.ok()) {
    // Not fatal: the server runs with everything in memory, as without tier-dir.
    log::Warning("Cold tier off: {}", status.message());
    keyspace_->SetTierUnavailable(status.message());
    return;
  }
  log::Notice("Cold tier in {}: {} bytes{}", dir, options.max_bytes,
              store->files().direct() ? ", O_DIRECT" : "");
  auto tier = std::make_unique<ColdTier>(std::move(store),
                                         std::stoull(config_->Value("tier-min-value-size")));
  // Collections go to the tier as snapshots encode them.
  tier->SetCollectionCodec(
      {.encode = [](const Object& obj, std::string* out) { EncodeObject(obj, out); },
       .decode =
           [this](ObjType type, std::string_view bytes, int64_t expire_at_ms) {
             return DecodeObject(static_cast<uint8_t>(type), bytes,
                                 persistence_.ZSetLimitsFromConfig(), expire_at_ms);
           }});
  // The Host View needs DPDK's EAL; without it every key a batch needs is asked of the index.
  persistence::Status view_status = offload::StartDpdk(kDpdkMemoryMb);
  std::unique_ptr<offload::HostView> view;
  if (view_status.ok()) view_status = offload::HostView::Create(kHostViewKeys, &view);
  if (view_status.ok()) {
    tier->SetHostView(std::move(view));
  } else {
    log::Warning("Cold tier without a Host View: {}", view_status.message());
    tier->SetHostViewUnavailable(view_status.message());
  }
  keyspace_->SetTier(std::move(tier));
}

Server::Server(std::unique_ptr<Config> config, MemoryGuard::UsedMemoryFn used_memory)
    : start_time_ms_(NowMs()),
      config_(std::move(config)),
      command_table_(
          CommandTable::WithRenames(AllCommands(), config_->command_renames(), &config_error_)),
      users_(NewUsers(*config_, &config_error_)),
      acl_log_(static_cast<size_t>(std::stoll(config_->Value("acllog-max-len")))),
      keyspace_(std::make_unique<Keyspace>(config_->databases(), NewIndexStore(*config_))),
      stats_(static_cast<size_t>(config_->threads()), AllCommands().flat().size()),
      persistence_(*config_, *keyspace_, *this),
      memory_(*keyspace_, *config_, std::move(used_memory)),
      services_{command_table_ ? *command_table_ : AllCommands(),
                *config_,
                *keyspace_,
                clients_,
                scan_cursors_,
                stats_,
                persistence_,
                *this,
                *users_,
                acl_log_,
                memory_,
                scripts_,
                running_script_,
                functions_,
                pubsub_,
                tracking_,
                monitors_,
                pause_,
                blocked_,
                slowlog_},
      commands_(services_, [this](int64_t now_ms) {
        persistence_.Cron(now_ms);
        memory_.TierCron();
        tracking_.BroadcastPending();  // what changed off the I/O threads (active expiry)
        stats_.SampleRates(now_ms);
      }) {
  keyspace_->SetLazyFreePolicy(LazyFreePolicyOf(*config_));
  keyspace_->notifier().SetSink(&pubsub_);
  keyspace_->tracker().SetListener(&tracking_);
  keyspace_->SetKeyWaiters(&blocked_);
  keyspace_->notifier().SetClasses(config_->notify_keyspace_events());
}

Server::~Server() = default;

int Server::Run() {
  int rc = Serve();
  {
    std::lock_guard lock(started_mu_);
    if (start_state_ == StartState::kStarting) start_state_ = StartState::kFailed;
  }
  started_cv_.notify_all();
  return rc;
}

bool Server::WaitUntilListening() {
  std::unique_lock lock(started_mu_);
  started_cv_.wait(lock, [this] { return start_state_ != StartState::kStarting; });
  return start_state_ == StartState::kListening;
}

int Server::Serve() {
  signal(SIGPIPE, SIG_IGN);
  if (!config_error_.empty()) {
    log::Warning("Fatal config error: {}", config_error_);
    return 1;
  }
  memory_.NoteStartup();
  OpenTier();
  {
    // Data first, then the port: clients never see a half-loaded keyspace.
    persistence::Status status = LoadData();
    if (!status.ok()) {
      log::Warning("Fatal error loading the data set: {}", status.message());
      return 1;
    }
  }
  {
    DescriptorFit fit = config_->FitMaxClientsToDescriptors();
    for (const std::string& line : fit.warnings) log::Warning("{}", line);
    for (const std::string& line : fit.notices) log::Notice("{}", line);
    if (fit.too_low) return 1;
  }
  threads_ = std::make_unique<IoThreadPool>(*config_, commands_, stats_);
  listener_ = std::make_unique<Listener>(*config_, *threads_, [this] { RequestShutdown(); });
  if (std::string error = listener_->Listen(); !error.empty()) {
    log::Warning("{}", error);
    return 1;
  }
  listening_port_ = listener_->port();
  log::Notice("ordis ready to accept connections on port {} with {} I/O threads", listening_port_,
              threads_->size());
  {
    std::lock_guard lock(started_mu_);
    start_state_ = StartState::kListening;
  }
  started_cv_.notify_all();
  active_expiry_.Start();
  threads_->Start();
  threads_->Join();
  active_expiry_.Stop();
  listener_.reset();
  threads_.reset();
  if (!shutdown_saved_) {
    // A signal: save when save points are configured (as Redis), and sync the log.
    persistence::Status status = persistence_.Shutdown(!config_->Value("save").empty(), true);
    if (!status.ok()) {
      log::Warning("Error saving on shutdown: {}", status.message());
    }
  }
  log::Notice("ordis is now ready to exit, bye bye...");
  return 0;
}

persistence::Status Server::LoadData() { return persistence_.Start(services_); }

void Server::RequestShutdown() {
  if (shutting_down_.exchange(true)) return;
  if (threads_ != nullptr) threads_->Stop();
}

void Server::ExitNow() {
  log::Warning("SHUTDOWN NOSAVE while a script is busy: exiting now, without the script's effects");
  log::Notice("ordis is now ready to exit, bye bye...");
  std::_Exit(0);
}

ThreadsInfo Server::Threads() const {
  ThreadsInfo info;
  if (threads_ == nullptr) return info;
  info.active = threads_->active();
  info.changes = threads_->changes();
  info.connections = threads_->Assigned();
  return info;
}

}  // namespace ordis::server
