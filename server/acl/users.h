// The server's users: ACL SETUSER / DELUSER / GETUSER / LIST / USERS, AUTH, requirepass, the ACL
// file and the config file's "user" lines.
//
// Thread safety: every Users method may be called from any thread; writers (SETUSER, LOAD...)
// serialize on mu_. The per-command read path does not touch Users: each client holds a
// UserRef, whose Current() costs one atomic load while the user is unchanged. A writer builds
// the new User aside (all-or-nothing: a bad rule changes nothing) and publishes it into the
// user's slot under the slot's mutex, then bumps the slot's version (release); a UserRef that
// sees a new version (acquire) copies the new pointer under that mutex. The old User lives as
// long as some client still holds it, so a check never races a change.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/acl/catalog.h"
#include "server/acl/user.h"

namespace ordis::acl {

// One user name's current definition; shared by the Users map and the clients' UserRefs.
class UserSlot {
 public:
  explicit UserSlot(std::shared_ptr<const User> user) : user_(std::move(user)) {}
  void Publish(std::shared_ptr<const User> user);  // nullptr: the user was deleted
  std::shared_ptr<const User> Get() const;

 private:
  friend class UserRef;
  mutable std::mutex mu_;
  std::shared_ptr<const User> user_;  // GUARDED_BY(mu_)
  // Bumped after every Publish. release/acquire: a reader that sees the new version and then
  // takes mu_ finds the new user (the mutex alone orders it; the version only says "look").
  std::atomic<uint64_t> version_{0};
};

// A client's handle on its user. Not thread safe: one per client, used by its I/O thread.
class UserRef {
 public:
  UserRef() = default;
  explicit UserRef(std::shared_ptr<UserSlot> slot);

  explicit operator bool() const { return slot_ != nullptr; }
  // The user as last published; nullptr once it was deleted (DELUSER, or replaced by ACL LOAD),
  // when the command layer must disconnect the client as Redis does. The pointer stays valid
  // until the next Current() call on this handle.
  const User* Current() {
    // acquire: pairs with the release in UserSlot::Publish.
    if (slot_->version_.load(std::memory_order_acquire) != seen_) Reload();
    return user_.get();
  }

 private:
  void Reload();
  std::shared_ptr<UserSlot> slot_;
  std::shared_ptr<const User> user_;
  uint64_t seen_ = 0;
};

class Users {
 public:
  // Starts with the "default" user (on nopass ~* &* +@all). all_channels_default is
  // acl-pubsub-default (false: resetchannels, Redis 7.0's default).
  explicit Users(std::shared_ptr<const Catalog> catalog, bool all_channels_default = false);

  const Catalog& catalog() const { return *catalog_; }

  // ACL SETUSER name rules...: creates the user if needed and applies the rules in order,
  // selectors spread over several arguments merged first ("(~a" "+get)"). Returns "" or the
  // error reply ("ERR Error in ACL SETUSER modifier '...': Syntax error"); nothing changes then.
  std::string SetUser(std::string_view name, std::span<const std::string> rules);

  // ACL DELUSER: returns "" and sets *deleted, or the error when "default" is named.
  std::string DelUsers(std::span<const std::string> names, int* deleted);

  std::shared_ptr<const User> Find(std::string_view name) const;
  UserRef Ref(std::string_view name) const;  // empty when there is no such user
  UserRef DefaultUser() const;

  std::vector<std::string> Names() const;  // ACL USERS, sorted bytewise
  std::vector<std::string> List() const;   // ACL LIST lines, "user <name> <rules>"
  std::optional<UserInfo> GetUser(std::string_view name) const;

  // ACL CAT category: the commands in the category, or nullopt for an unknown one (reply
  // UnknownCategoryError).
  std::optional<std::vector<std::string>> CommandsInCategory(std::string_view category) const;
  static std::string UnknownCategoryError(std::string_view category);
  // CONFIG SET acl-pubsub-default: the channels of users created from now on.
  void SetAllChannelsDefault(bool all) { all_channels_default_.store(all); }

  // requirepass: the default user gets exactly this password; "" makes it nopass.
  void SetRequirePass(std::string_view password);

  // AUTH: the user if name exists (case-sensitive), is on, and password matches (anything for
  // nopass); else an empty UserRef.
  UserRef Authenticate(std::string_view name, std::string_view password) const;

  // ACL LOAD: all or nothing. Returns "" or Redis's error text (without "ERR "): every bad line
  // as "<path>:<line>: ...", then "WARNING: ACL errors detected, no change to the previously
  // active ACL rules was performed". Users the file replaces are deleted (their clients go);
  // the default user keeps its slot.
  std::string LoadFile(const std::string& path);
  // ACL SAVE: writes a temporary file, fsyncs and renames it over path. Returns "" or what failed
  // (for the log; the reply is kSaveError).
  std::string SaveFile(const std::string& path) const;
  static constexpr std::string_view kSaveError =
      "ERR There was an error trying to save the ACLs. Please check the server logs for more "
      "information";

  // A config file's "user <name> <rules...>" line (args[0] is "user"): checked now (unknown
  // commands excepted, as Redis) and kept for LoadConfiguredUsers. Returns "" or the config
  // error ("Error in user declaration 'x': Syntax error").
  std::string ParseUserDirective(std::span<const std::string> args);
  // Creates the users the config declared (a "default" line resets then redefines it). Returns
  // "" or the start-up error ("Error loading ACL rule '+x' for the user named 'u': ...").
  std::string LoadConfiguredUsers();

 private:
  std::shared_ptr<const User> Build(std::string_view name, std::span<const std::string> rules,
                                    std::string* error) const;

  std::shared_ptr<const Catalog> catalog_;
  std::atomic<bool> all_channels_default_;  // acl-pubsub-default, for users made from now on
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<UserSlot>, std::less<>> users_;  // GUARDED_BY(mu_)
  std::vector<std::vector<std::string>> pending_;  // GUARDED_BY(mu_); config "user" lines
};

// Joins selector rules spread over several arguments: "(~a" "+get)" -> "(~a +get)". Returns
// false and the index of the unclosed opening argument when a '(' is never closed.
bool MergeSelectorArgs(std::span<const std::string> args, std::vector<std::string>* merged,
                       size_t* bad_index);

}  // namespace ordis::acl
