#include "server/acl/user.h"

#include <strings.h>

#include <algorithm>
#include <bit>
#include <cctype>

#include "base/glob.h"
#include "base/split_args.h"
#include "server/acl/password.h"

namespace ordis::acl {
namespace {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Redis refuses patterns with white space or NUL: they could not be written back to the file.
bool HasSpaces(std::string_view s) {
  for (char c : s) {
    if (c == '\0' || std::isspace(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

void SetBit(std::vector<uint64_t>* bits, int id, bool value) {
  uint64_t mask = uint64_t{1} << (id & 63);
  if (value) {
    (*bits)[id >> 6] |= mask;
  } else {
    (*bits)[id >> 6] &= ~mask;
  }
}

void SetAll(std::vector<uint64_t>* bits, int n, bool value) {
  std::fill(bits->begin(), bits->end(), 0);
  if (!value) return;
  for (int id = 0; id < n; id++) SetBit(bits, id, true);
}

std::string PatternText(const KeyPattern& p) {
  std::string out;
  if (p.access == kKeyRead) {
    out = "%R~";
  } else if (p.access == kKeyWrite) {
    out = "%W~";
  } else if (p.pattern == "*") {
    // A read-write "*" pattern that is not allkeys ("%RW~*"): Redis shows it as "~*", which reads
    // back as allkeys and makes the patterns after it an error, so its ACL SAVE writes a file it
    // cannot load. This form reads back as itself.
    out = "%RW~";
  } else {
    out = "~";
  }
  return out + p.pattern;
}

}  // namespace

std::string_view RuleErrorText(RuleError e) {
  switch (e) {
    case RuleError::kOk:
      return "";
    case RuleError::kSyntax:
      return "Syntax error";
    case RuleError::kUnknownCommand:
      return "Unknown command or category name in ACL";
    case RuleError::kKeyAfterAllKeys:
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does "
             "not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case RuleError::kChannelAfterAllChannels:
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and "
             "does not have any effect. Try 'resetchannels' to start with an empty list of "
             "channels";
    case RuleError::kNoSuchPassword:
      return "The password you are trying to remove from the user does not exist";
    case RuleError::kBadHash:
      return "The password hash must be exactly 64 characters and contain only lowercase "
             "hexadecimal characters";
    case RuleError::kFirstArgOfSubcommand:
      return "Allowing first-arg of a subcommand is not supported";
  }
  return "Wrong format";
}

// ---------------------------------------------------------------------------------------------
// Selector

Selector::Selector(const Catalog* catalog)
    : catalog_(catalog), allowed_(std::max(1, (catalog->size() + 63) / 64), 0) {}

void Selector::ChangeBits(std::vector<uint64_t>* bits, int id, bool allow) const {
  // A container's rule covers all its subcommands.
  SetBit(bits, id, allow);
  for (int sub : catalog_->Subcommands(id)) SetBit(bits, sub, allow);
}

void Selector::CategoryBits(std::vector<uint64_t>* bits, uint32_t category, bool allow) const {
  for (int id : catalog_->InCategory(category)) ChangeBits(bits, id, allow);
}

void Selector::ChangePermission(int id, bool allow) {
  // Any rule naming a command drops its first-arg rules (+select|0 then -select: none left).
  ChangeBits(&allowed_, id, allow);
  first_args_.erase(id);
}

RuleError Selector::Apply(std::string_view op) {
  if (EqualsNoCase(op, "allkeys") || EqualsNoCase(op, "~*")) {
    all_keys_ = true;
    keys_.clear();
  } else if (EqualsNoCase(op, "resetkeys")) {
    all_keys_ = false;
    keys_.clear();
  } else if (EqualsNoCase(op, "allchannels") || EqualsNoCase(op, "&*")) {
    all_channels_ = true;
    channels_.clear();
  } else if (EqualsNoCase(op, "resetchannels")) {
    all_channels_ = false;
    channels_.clear();
  } else if (EqualsNoCase(op, "allcommands") || EqualsNoCase(op, "+@all")) {
    SetAll(&allowed_, catalog_->size(), true);
    future_commands_ = true;
    first_args_.clear();
  } else if (EqualsNoCase(op, "nocommands") || EqualsNoCase(op, "-@all")) {
    SetAll(&allowed_, catalog_->size(), false);
    future_commands_ = false;
    first_args_.clear();
  } else if (!op.empty() && (op[0] == '~' || op[0] == '%')) {
    if (all_keys_) return RuleError::kKeyAfterAllKeys;
    uint8_t access = 0;
    size_t offset = 1;
    if (op[0] == '%') {
      for (; offset < op.size(); offset++) {
        char c = static_cast<char>(std::toupper(static_cast<unsigned char>(op[offset])));
        if (c == 'R' && !(access & kKeyRead)) {
          access |= kKeyRead;
        } else if (c == 'W' && !(access & kKeyWrite)) {
          access |= kKeyWrite;
        } else if (op[offset] == '~') {
          offset++;
          break;
        } else {
          return RuleError::kSyntax;
        }
      }
      if (access == 0) return RuleError::kSyntax;  // "%~a": a pattern granting nothing
    } else {
      access = kKeyRead | kKeyWrite;
    }
    std::string_view pattern = op.substr(std::min(offset, op.size()));
    if (HasSpaces(pattern)) return RuleError::kSyntax;
    auto it = std::find_if(keys_.begin(), keys_.end(),
                           [&](const KeyPattern& p) { return p.pattern == pattern; });
    if (it == keys_.end()) {
      keys_.push_back({std::string(pattern), access});
    } else {
      it->access |= access;  // %R~a then %W~a is ~a
    }
    all_keys_ = false;
  } else if (!op.empty() && op[0] == '&') {
    if (all_channels_) return RuleError::kChannelAfterAllChannels;
    std::string_view pattern = op.substr(1);
    if (HasSpaces(pattern)) return RuleError::kSyntax;
    if (std::find(channels_.begin(), channels_.end(), pattern) == channels_.end()) {
      channels_.emplace_back(pattern);
    }
    all_channels_ = false;
  } else if (!op.empty() && (op[0] == '+' || op[0] == '-')) {
    return ApplyCommandRule(op);
  } else {
    return RuleError::kSyntax;
  }
  return RuleError::kOk;
}

RuleError Selector::ApplyCommandRule(std::string_view op) {
  const bool allow = op[0] == '+';
  if (op.size() > 1 && op[1] == '@') {
    uint32_t category = CategoryByName(op.substr(2));
    if (category == 0) return RuleError::kUnknownCommand;
    for (int id : catalog_->InCategory(category)) ChangePermission(id, allow);
    return RuleError::kOk;
  }
  std::string_view name = op.substr(1);
  size_t bar = name.rfind('|');
  if (!allow || bar == std::string_view::npos) {
    const CommandInfo* cmd = catalog_->Find(name);  // "-client|kill" names the subcommand
    if (cmd == nullptr) return RuleError::kUnknownCommand;
    ChangePermission(cmd->id, allow);
    return RuleError::kOk;
  }
  const CommandInfo* cmd = catalog_->Find(name.substr(0, bar));
  if (cmd == nullptr) return RuleError::kUnknownCommand;
  if (cmd->parent_id != -1) return RuleError::kFirstArgOfSubcommand;
  std::string_view arg = name.substr(bar + 1);
  if (arg.empty()) return RuleError::kSyntax;
  if (!catalog_->Subcommands(cmd->id).empty()) {
    const CommandInfo* sub = catalog_->Find(name);
    if (sub == nullptr) return RuleError::kUnknownCommand;
    ChangePermission(sub->id, true);
    return RuleError::kOk;
  }
  // A first argument of an otherwise blocked command (+select|0): Redis deprecates it but keeps
  // it, case-insensitive and without duplicates.
  std::vector<std::string>& args = first_args_[cmd->id];
  for (const std::string& a : args) {
    if (EqualsNoCase(a, arg)) return RuleError::kOk;
  }
  args.emplace_back(arg);
  return RuleError::kOk;
}

bool Selector::CheckKey(std::string_view key, uint8_t access) const {
  if (all_keys_) return true;
  for (const KeyPattern& p : keys_) {
    if ((p.access & access) != access) continue;
    if (GlobMatch(p.pattern, key)) return true;
  }
  return false;
}

bool Selector::CheckChannel(std::string_view channel, bool pattern) const {
  if (all_channels_) return true;
  for (const std::string& p : channels_) {
    if (pattern ? p == channel : GlobMatch(p, channel)) return true;
  }
  return false;
}

Verdict Selector::Check(const Request& r) const {
  const int id = r.command_id;
  if (!Test(allowed_, id) && !catalog_->at(id).no_auth) {
    auto it = first_args_.find(id);
    if (!r.first_arg || it == first_args_.end()) return {Verdict::kDeniedCommand, 0};
    bool found = false;
    for (const std::string& a : it->second) found = found || EqualsNoCase(a, *r.first_arg);
    if (!found) return {Verdict::kDeniedCommand, 0};
  }
  if (!all_keys_) {
    for (size_t i = 0; i < r.keys.size(); i++) {
      if (!CheckKey(r.keys[i].name, r.keys[i].access)) {
        return {Verdict::kDeniedKey, static_cast<int>(i)};
      }
    }
  }
  if (!all_channels_) {
    for (size_t i = 0; i < r.channels.size(); i++) {
      if (!CheckChannel(r.channels[i].name, r.channels[i].pattern)) {
        return {Verdict::kDeniedChannel, static_cast<int>(i)};
      }
    }
  }
  return {};
}

// Redis 7.0's description of the command bits: start from +@all (when the future-commands mark
// is set) or -@all, then repeatedly add the category that fits the remaining bits best (fewest
// differences, then most in common, ties to the earlier category in ACL CAT order), then fix
// single commands, then the first-arg rules of blocked commands. Redis walks its command dict
// in hash order for the single commands (a random seed, so no fixed order exists to match);
// this walks the catalog by id, each container followed by its subcommands.
std::string Selector::DescribeCommands() const {
  const int n = catalog_->size();
  const bool additive = !future_commands_;
  std::string rules = additive ? "-@all " : "+@all ";
  std::vector<uint64_t> fake(allowed_.size());
  SetAll(&fake, n, !additive);
  std::vector<uint64_t> remaining = allowed_;
  bool applied[kCategoryCount] = {};
  while (true) {
    int best = -1;
    size_t min_diff = SIZE_MAX, max_same = 0;
    for (int c = 0; c < kCategoryCount; c++) {
      if (applied[c]) continue;
      size_t on = 0, off = 0;
      for (int id : catalog_->InCategory(1u << c)) (Test(remaining, id) ? on : off)++;
      size_t diff = additive ? off : on;
      size_t same = additive ? on : off;
      if (same > diff && (diff < min_diff || (diff == min_diff && same > max_same))) {
        best = c;
        min_diff = diff;
        max_same = same;
      }
    }
    if (best == -1) break;
    CategoryBits(&fake, 1u << best, additive);
    CategoryBits(&remaining, 1u << best, !additive);
    rules += additive ? "+@" : "-@";
    rules += CategoryName(best);
    rules += ' ';
    applied[best] = true;
  }
  auto fix = [&](int id) {
    bool user_bit = Test(allowed_, id);
    if (user_bit != Test(fake, id)) {
      rules += user_bit ? '+' : '-';
      rules += catalog_->at(id).name;
      rules += ' ';
      ChangeBits(&fake, id, user_bit);
    }
  };
  for (int id : catalog_->TopLevel()) {
    fix(id);
    for (int sub : catalog_->Subcommands(id)) fix(sub);
    auto it = first_args_.find(id);
    if (!Test(allowed_, id) && it != first_args_.end()) {
      for (const std::string& arg : it->second) {
        rules += '+';
        rules += catalog_->at(id).name;
        rules += '|';
        rules += arg;
        rules += ' ';
      }
    }
  }
  rules.pop_back();
  return rules;
}

std::string Selector::KeysText() const {
  if (all_keys_) return "~*";
  std::string out;
  for (const KeyPattern& p : keys_) {
    if (!out.empty()) out += ' ';
    out += PatternText(p);
  }
  return out;
}

std::string Selector::ChannelsText() const {
  if (all_channels_) return "&*";
  std::string out;
  for (const std::string& c : channels_) {
    if (!out.empty()) out += ' ';
    out += '&';
    out += c;
  }
  return out;
}

std::string Selector::Describe() const {
  std::string out;
  if (all_keys_) {
    out += "~* ";
  } else {
    for (const KeyPattern& p : keys_) out += PatternText(p) + " ";
  }
  if (all_channels_) {
    out += "&* ";
  } else {
    out += "resetchannels ";
    for (const std::string& c : channels_) out += "&" + c + " ";
  }
  out += DescribeCommands();
  return out;
}

SelectorInfo Selector::Info() const { return {DescribeCommands(), KeysText(), ChannelsText()}; }

bool Selector::SamePermissions(const Selector& o) const {
  auto effective_first_args = [](const Selector& s) {
    std::map<int, std::vector<std::string>> out;
    for (const auto& [id, args] : s.first_args_) {
      if (Test(s.allowed_, id)) continue;  // invisible while the command itself is allowed
      std::vector<std::string> lower;
      for (std::string a : args) {
        for (char& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        lower.push_back(a);
      }
      std::sort(lower.begin(), lower.end());
      if (!lower.empty()) out[id] = lower;
    }
    return out;
  };
  auto all_keys = [](const Selector& s) {
    return s.all_keys_ || std::any_of(s.keys_.begin(), s.keys_.end(), [](const KeyPattern& p) {
             return p.pattern == "*" && p.access == (kKeyRead | kKeyWrite);
           });
  };
  if (allowed_ != o.allowed_ || future_commands_ != o.future_commands_ ||
      all_channels_ != o.all_channels_ || all_keys(*this) != all_keys(o)) {
    return false;
  }
  if (!all_keys(*this) && keys_ != o.keys_) return false;
  if (!all_channels_ && channels_ != o.channels_) return false;
  return effective_first_args(*this) == effective_first_args(o);
}

// ---------------------------------------------------------------------------------------------
// User

User::User(std::string name, std::shared_ptr<const Catalog> catalog, bool all_channels)
    : name_(std::move(name)), catalog_(std::move(catalog)), default_all_channels_(all_channels) {
  selectors_.emplace_back(catalog_.get());
  selectors_[0].all_channels_ = all_channels;
  Refresh();
}

User User::Default(std::shared_ptr<const Catalog> catalog) {
  User u("default", std::move(catalog));
  for (std::string_view rule : {"+@all", "~*", "&*", "on", "nopass"}) u.Apply(rule);
  return u;
}

RuleError User::Apply(std::string_view op) {
  RuleError err = RuleError::kOk;
  if (op.empty()) {
    // Redis treats an empty rule as a no-op.
  } else if (EqualsNoCase(op, "on")) {
    enabled_ = true;
  } else if (EqualsNoCase(op, "off")) {
    enabled_ = false;
  } else if (EqualsNoCase(op, "skip-sanitize-payload")) {
    sanitize_ = kSkipSanitize;
  } else if (EqualsNoCase(op, "sanitize-payload")) {
    sanitize_ = kSanitize;
  } else if (EqualsNoCase(op, "nopass")) {
    nopass_ = true;
    passwords_.clear();
  } else if (EqualsNoCase(op, "resetpass")) {
    nopass_ = false;
    passwords_.clear();
  } else if (op[0] == '>' || op[0] == '#') {
    std::string hash;
    if (op[0] == '>') {
      hash = HashPassword(op.substr(1));
    } else if (IsPasswordHash(op.substr(1))) {
      hash = op.substr(1);
    } else {
      return RuleError::kBadHash;
    }
    if (std::find(passwords_.begin(), passwords_.end(), hash) == passwords_.end()) {
      passwords_.push_back(std::move(hash));
    }
    nopass_ = false;
  } else if (op[0] == '<' || op[0] == '!') {
    std::string hash;
    if (op[0] == '<') {
      hash = HashPassword(op.substr(1));
    } else if (IsPasswordHash(op.substr(1))) {
      hash = op.substr(1);
    } else {
      return RuleError::kBadHash;
    }
    auto it = std::find(passwords_.begin(), passwords_.end(), hash);
    if (it == passwords_.end()) return RuleError::kNoSuchPassword;
    passwords_.erase(it);
  } else if (op[0] == '(' && op.back() == ')') {
    // Redis splits the inside as it splits arguments (quotes honoured); unbalanced quotes give
    // an empty selector rather than an error.
    std::vector<std::string> words;
    if (!SplitArgs(op.substr(1, op.size() - 2), &words)) words.clear();
    Selector selector(catalog_.get());
    for (const std::string& w : words) {
      err = selector.Apply(w);
      if (err != RuleError::kOk) return err;
    }
    selectors_.push_back(std::move(selector));
  } else if (EqualsNoCase(op, "clearselectors")) {
    selectors_.erase(selectors_.begin() + 1, selectors_.end());
  } else if (EqualsNoCase(op, "reset")) {
    nopass_ = false;
    passwords_.clear();
    Selector& root = selectors_[0];
    root.all_keys_ = false;
    root.keys_.clear();
    root.all_channels_ = default_all_channels_;
    root.channels_.clear();
    enabled_ = false;
    sanitize_ = kSanitize;
    selectors_.erase(selectors_.begin() + 1, selectors_.end());
    root.Apply("-@all");
  } else {
    err = selectors_[0].Apply(op);
  }
  Refresh();
  return err;
}

void User::Refresh() {
  unrestricted_.assign(selectors_[0].allowed_.size(), 0);
  for (const Selector& s : selectors_) {
    if (!s.unrestricted()) continue;
    for (size_t i = 0; i < unrestricted_.size(); i++) unrestricted_[i] |= s.allowed_[i];
  }
  // Commands every user may run (AUTH, HELLO) skip the command bit but not keys or channels.
  for (int id = 0; id < catalog_->size(); id++) {
    if (!catalog_->at(id).no_auth) continue;
    for (const Selector& s : selectors_) {
      if (s.unrestricted()) SetBit(&unrestricted_, id, true);
    }
  }
}

Verdict User::CheckSlow(const Request& request) const {
  Verdict relevant{Verdict::kDeniedCommand, 0};
  for (const Selector& s : selectors_) {
    Verdict v = s.Check(request);
    if (v.ok()) return v;
    if (v.kind > relevant.kind || (v.kind == relevant.kind && v.index > relevant.index)) {
      relevant = v;
    }
  }
  return relevant;
}

bool User::CheckKey(std::string_view key, uint8_t access) const {
  for (const Selector& s : selectors_) {
    if (s.CheckKey(key, access)) return true;
  }
  return false;
}

bool User::CheckChannel(std::string_view channel, bool pattern) const {
  for (const Selector& s : selectors_) {
    if (s.CheckChannel(channel, pattern)) return true;
  }
  return false;
}

bool User::PasswordMatches(std::string_view password) const {
  if (!enabled_) return false;
  if (nopass_) return true;
  std::string hash = HashPassword(password);
  bool match = false;
  for (const std::string& p : passwords_) match = DigestsEqual(hash, p) || match;
  return match;
}

UserInfo User::Info() const {
  UserInfo info;
  // Redis's flag order: on, off, nopass, skip-sanitize-payload, sanitize-payload.
  info.flags.push_back(enabled_ ? "on" : "off");
  if (nopass_) info.flags.push_back("nopass");
  if (sanitize_ == kSkipSanitize) info.flags.push_back("skip-sanitize-payload");
  if (sanitize_ == kSanitize) info.flags.push_back("sanitize-payload");
  info.passwords = passwords_;
  info.root = selectors_[0].Info();
  for (size_t i = 1; i < selectors_.size(); i++) info.selectors.push_back(selectors_[i].Info());
  return info;
}

std::string User::Describe() const {
  std::string out;
  for (const std::string& f : Info().flags) out += f + " ";
  for (const std::string& p : passwords_) out += "#" + p + " ";
  out += selectors_[0].Describe();
  for (size_t i = 1; i < selectors_.size(); i++) out += " (" + selectors_[i].Describe() + ")";
  return out;
}

bool User::SamePermissions(const User& o) const {
  if (enabled_ != o.enabled_ || nopass_ != o.nopass_ || passwords_ != o.passwords_ ||
      selectors_.size() != o.selectors_.size()) {
    return false;
  }
  for (size_t i = 0; i < selectors_.size(); i++) {
    if (!selectors_[i].SamePermissions(o.selectors_[i])) return false;
  }
  return true;
}

}  // namespace ordis::acl
