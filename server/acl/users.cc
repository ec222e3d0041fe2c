#include "server/acl/users.h"

#include <fcntl.h>
#include <strings.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/clock.h"

namespace ordis::acl {
namespace {

bool HasSpaces(std::string_view s) {
  for (char c : s) {
    if (c == '\0' || std::isspace(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

std::string_view Trim(std::string_view s, std::string_view chars) {
  size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(chars);
  return s.substr(b, e - b + 1);
}

// sdssplitlen: every separator splits, so two spaces make an empty word (a no-op rule).
std::vector<std::string> SplitOnSpace(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t sp = line.find(' ', start);
    if (sp == std::string_view::npos) {
      out.emplace_back(line.substr(start));
      return out;
    }
    out.emplace_back(line.substr(start, sp - start));
    start = sp + 1;
  }
}

}  // namespace

bool MergeSelectorArgs(std::span<const std::string> args, std::vector<std::string>* merged,
                       size_t* bad_index) {
  merged->clear();
  std::string selector;
  bool open = false;
  size_t open_index = 0;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& op = args[i];
    if (!open && !op.empty() && op[0] == '(' && op.back() != ')') {
      selector = op;
      open = true;
      open_index = i;
      continue;
    }
    if (open) {
      selector += ' ';
      selector += op;
      if (!op.empty() && op.back() == ')') {
        open = false;
        merged->push_back(std::move(selector));
      }
      continue;
    }
    merged->push_back(op);
  }
  if (open) {
    if (bad_index != nullptr) *bad_index = open_index;
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// UserSlot, UserRef

void UserSlot::Publish(std::shared_ptr<const User> user) {
  std::lock_guard lock(mu_);
  user_ = std::move(user);
  // release: a UserRef that acquires this version then locks mu_ and sees user_.
  version_.fetch_add(1, std::memory_order_release);
}

std::shared_ptr<const User> UserSlot::Get() const {
  std::lock_guard lock(mu_);
  return user_;
}

UserRef::UserRef(std::shared_ptr<UserSlot> slot) : slot_(std::move(slot)) { Reload(); }

void UserRef::Reload() {
  std::lock_guard lock(slot_->mu_);
  user_ = slot_->user_;
  // relaxed: read under mu_, which orders it with Publish's increment.
  seen_ = slot_->version_.load(std::memory_order_relaxed);
}

// ---------------------------------------------------------------------------------------------
// Users

Users::Users(std::shared_ptr<const Catalog> catalog, bool all_channels_default)
    : catalog_(std::move(catalog)), all_channels_default_(all_channels_default) {
  users_["default"] = std::make_shared<UserSlot>(std::make_shared<User>(User::Default(catalog_)));
}

std::shared_ptr<const User> Users::Build(std::string_view name, std::span<const std::string> rules,
                                         std::string* error) const {
  std::vector<std::string> merged;
  size_t bad = 0;
  if (!MergeSelectorArgs(rules, &merged, &bad)) {
    *error = "ERR Unmatched parenthesis in acl selector starting at '" + rules[bad] + "'.";
    return nullptr;
  }
  std::shared_ptr<const User> current;
  {
    auto it = users_.find(name);
    if (it != users_.end()) current = it->second->Get();
  }
  auto user = current ? std::make_shared<User>(*current)
                      : std::make_shared<User>(std::string(name), catalog_, all_channels_default_);
  for (const std::string& rule : merged) {
    RuleError e = user->Apply(rule);
    if (e != RuleError::kOk) {
      *error = "ERR Error in ACL SETUSER modifier '" + rule + "': " + std::string(RuleErrorText(e));
      return nullptr;
    }
  }
  return user;
}

std::string Users::SetUser(std::string_view name, std::span<const std::string> rules) {
  if (HasSpaces(name)) return "ERR Usernames can't contain spaces or null characters";
  std::lock_guard lock(mu_);
  std::string error;
  std::shared_ptr<const User> user = Build(name, rules, &error);
  if (!user) return error;
  auto it = users_.find(name);
  if (it == users_.end()) {
    users_.emplace(std::string(name), std::make_shared<UserSlot>(std::move(user)));
  } else {
    it->second->Publish(std::move(user));
  }
  return "";
}

std::string Users::DelUsers(std::span<const std::string> names, int* deleted) {
  for (const std::string& n : names) {
    if (n == "default") return "ERR The 'default' user cannot be removed";
  }
  std::lock_guard lock(mu_);
  *deleted = 0;
  for (const std::string& n : names) {
    auto it = users_.find(n);
    if (it == users_.end()) continue;
    it->second->Publish(nullptr);
    users_.erase(it);
    ++*deleted;
  }
  return "";
}

std::shared_ptr<const User> Users::Find(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second->Get();
}

UserRef Users::Ref(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = users_.find(name);
  return it == users_.end() ? UserRef() : UserRef(it->second);
}

UserRef Users::DefaultUser() const { return Ref("default"); }

std::vector<std::string> Users::Names() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, slot] : users_) out.push_back(name);
  return out;
}

std::vector<std::string> Users::List() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, slot] : users_) {
    out.push_back("user " + name + " " + slot->Get()->Describe());
  }
  return out;
}

std::optional<UserInfo> Users::GetUser(std::string_view name) const {
  std::shared_ptr<const User> u = Find(name);
  if (!u) return std::nullopt;
  return u->Info();
}

std::optional<std::vector<std::string>> Users::CommandsInCategory(std::string_view category) const {
  uint32_t bit = CategoryByName(category);
  if (bit == 0) return std::nullopt;
  std::vector<std::string> out;
  for (int id : catalog_->InCategory(bit)) out.push_back(catalog_->at(id).name);
  return out;
}

std::string Users::UnknownCategoryError(std::string_view category) {
  return "ERR Unknown category '" + std::string(category.substr(0, 128)) + "'";
}

void Users::SetRequirePass(std::string_view password) {
  std::lock_guard lock(mu_);
  std::shared_ptr<UserSlot>& slot = users_["default"];
  auto user = std::make_shared<User>(*slot->Get());
  user->Apply("resetpass");
  if (password.empty()) {
    user->Apply("nopass");
  } else {
    user->Apply(">" + std::string(password));
  }
  slot->Publish(std::move(user));
}

UserRef Users::Authenticate(std::string_view name, std::string_view password) const {
  std::shared_ptr<UserSlot> slot;
  {
    std::lock_guard lock(mu_);
    auto it = users_.find(name);
    if (it == users_.end()) return {};
    slot = it->second;
  }
  UserRef ref(slot);
  const User* user = ref.Current();
  if (user == nullptr || !user->PasswordMatches(password)) return {};
  return ref;
}

std::string Users::LoadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return "Error loading ACLs, opening file '" + path + "': " + std::strerror(errno);
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();

  std::map<std::string, std::shared_ptr<const User>, std::less<>> loaded;
  std::string errors;
  size_t start = 0;
  for (int linenum = 1; start <= text.size(); linenum++) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line = Trim(std::string_view(text).substr(start, end - start), " \t\r\n");
    start = end + 1;
    if (line.empty()) continue;
    std::vector<std::string> argv = SplitOnSpace(line);
    const std::string where = path + ":" + std::to_string(linenum);
    if (argv[0] != "user" || argv.size() < 2) {
      errors += where + " should start with user keyword followed by the username. ";
      continue;
    }
    if (HasSpaces(argv[1])) {
      errors += "'" + where + ": username '" + argv[1] + "' contains invalid characters. ";
      continue;
    }
    if (loaded.count(argv[1])) {
      errors += "WARNING: Duplicate user '" + argv[1] + "' found on line " +
                std::to_string(linenum) + ". ";
      continue;
    }
    auto user = std::make_shared<User>(argv[1], catalog_, all_channels_default_);
    loaded[argv[1]] = user;
    std::vector<std::string> merged;
    if (!MergeSelectorArgs(std::span(argv).subspan(2), &merged, nullptr)) {
      errors += where + ": Unmatched parenthesis in selector definition.";
      continue;
    }
    for (const std::string& arg : merged) {
      std::string_view rule = Trim(arg, "\t\r\n");
      RuleError e = user->Apply(rule);
      if (e == RuleError::kOk) continue;
      // Redis 7.0 reports every unknown command of a line, but stops at any other error.
      if (e == RuleError::kUnknownCommand) {
        errors += where + ": Error in applying operation '" + std::string(rule) +
                  "': " + std::string(RuleErrorText(e)) + ". ";
        continue;
      }
      errors += where + ": " + std::string(RuleErrorText(e)) + ". ";
      break;
    }
  }
  if (!errors.empty()) {
    return errors +
           "WARNING: ACL errors detected, no change to the previously active ACL rules was "
           "performed";
  }

  std::lock_guard lock(mu_);
  if (!loaded.count("default")) {
    loaded["default"] = std::make_shared<User>(User::Default(catalog_));
  }
  std::map<std::string, std::shared_ptr<UserSlot>, std::less<>> users;
  for (auto& [name, user] : loaded) {
    if (name == "default") {
      users[name] = users_["default"];  // clients of the default user stay
      users[name]->Publish(user);
    } else {
      users[name] = std::make_shared<UserSlot>(user);
    }
  }
  for (auto& [name, slot] : users_) {
    if (name != "default") slot->Publish(nullptr);  // Redis frees them and kills their clients
  }
  users_.swap(users);
  return "";
}

std::string Users::SaveFile(const std::string& path) const {
  std::string text;
  for (const std::string& line : List()) text += line + "\n";
  const std::string tmp = path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(NowMs());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd == -1) return "Opening temp ACL file for ACL SAVE: " + std::string(std::strerror(errno));
  std::string error;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = "Writing ACL file for ACL SAVE: " + std::string(std::strerror(errno));
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (error.empty() && fsync(fd) != 0) {
    error = "Writing ACL file for ACL SAVE: " + std::string(std::strerror(errno));
  }
  close(fd);
  if (error.empty() && rename(tmp.c_str(), path.c_str()) != 0) {
    error = "Renaming ACL file for ACL SAVE: " + std::string(std::strerror(errno));
  }
  if (!error.empty()) unlink(tmp.c_str());
  return error;
}

std::string Users::ParseUserDirective(std::span<const std::string> args) {
  // Redis names the culprit as args[j] with j counted among the rules, not among args (so
  // "user a on foo" blames 'a'); kept for identical messages.
  auto blame = [&](size_t j, std::string_view why) {
    return "Error in user declaration '" + (j < args.size() ? args[j] : std::string()) +
           "': " + std::string(why);
  };
  if (args.size() < 2 || strcasecmp(args[0].c_str(), "user") != 0) {
    return blame(0, RuleErrorText(RuleError::kSyntax));
  }
  std::lock_guard lock(mu_);
  for (const auto& p : pending_) {
    if (p[0] == args[1]) {
      return blame(1, "Duplicate user found. A user can only be defined once in config files");
    }
  }
  std::vector<std::string> merged;
  size_t bad = 0;
  if (!MergeSelectorArgs(args.subspan(2), &merged, &bad)) {
    return blame(bad, RuleErrorText(RuleError::kSyntax));
  }
  User fake(args[1], catalog_, all_channels_default_);
  for (size_t j = 0; j < merged.size(); j++) {
    RuleError e = fake.Apply(merged[j]);
    if (e != RuleError::kOk && e != RuleError::kUnknownCommand) return blame(j, RuleErrorText(e));
  }
  std::vector<std::string> entry{args[1]};
  entry.insert(entry.end(), merged.begin(), merged.end());
  pending_.push_back(std::move(entry));
  return "";
}

std::string Users::LoadConfiguredUsers() {
  std::lock_guard lock(mu_);
  std::map<std::string, std::shared_ptr<const User>, std::less<>> built;
  for (const auto& entry : pending_) {
    const std::string& name = entry[0];
    if (HasSpaces(name)) return "Spaces not allowed in ACL usernames";
    std::shared_ptr<User> user;
    if (name == "default") {
      user = std::make_shared<User>(*users_["default"]->Get());
      user->Apply("reset");
    } else {
      user = std::make_shared<User>(name, catalog_, all_channels_default_);
    }
    for (size_t j = 1; j < entry.size(); j++) {
      RuleError e = user->Apply(entry[j]);
      if (e != RuleError::kOk) {
        return "Error loading ACL rule '" + entry[j] + "' for the user named '" + name +
               "': " + std::string(RuleErrorText(e));
      }
    }
    built[name] = std::move(user);
  }
  for (auto& [name, user] : built) {
    auto it = users_.find(name);
    if (it == users_.end()) {
      users_.emplace(name, std::make_shared<UserSlot>(user));
    } else {
      it->second->Publish(user);
    }
  }
  pending_.clear();
  return "";
}

}  // namespace ordis::acl
