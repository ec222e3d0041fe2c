#include "server/commands/client_info.h"

#include "server/command/arg_parser.h"
#include "server/command/command_table.h"
#include "server/command/services.h"

namespace ordis::server {

bool ParseClientType(std::string_view name, ClientType* out) {
  if (EqualsIgnoreCase(name, "normal")) {
    *out = ClientType::kNormal;
    return true;
  }
  if (EqualsIgnoreCase(name, "pubsub")) {
    *out = ClientType::kPubSub;
    return true;
  }
  for (std::string_view other : {"master", "replica", "slave"}) {
    if (EqualsIgnoreCase(name, other)) {
      *out = ClientType::kOther;
      return true;
    }
  }
  return false;
}

void KillClient(CommandContext& ctx, uint64_t id) {
  if (id == ctx.client.id) {
    ctx.client.close_after_reply = true;
  } else {
    ctx.services.clients.Kill(id);
  }
}

void KillClientsOfUsers(CommandContext& ctx,
                        const std::function<bool(std::string_view user)>& doomed) {
  std::vector<uint64_t> ids;
  ctx.services.clients.ForEach([&](ClientState& c) {
    if (doomed(c.user_name)) ids.push_back(c.id);
  });
  for (uint64_t id : ids) KillClient(ctx, id);
}

bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

ClientType TypeOf(const ClientState& c) {
  return c.pubsub.load(std::memory_order_relaxed) ? ClientType::kPubSub : ClientType::kNormal;
}

bool ClientFilter::Matches(const ClientState& c, int64_t now_ms) const {
  if (type && *type != TypeOf(c)) return false;
  if (id != 0 && c.id != id) return false;
  if (!addr.empty() && c.addr != addr) return false;
  if (!laddr.empty() && c.laddr != laddr) return false;
  if (!user.empty() && user != "default") return false;
  if (max_age_s >= 0 && (now_ms - c.created_ms) / 1000 < max_age_s) return false;
  return true;
}

std::string ParseClientFilter(std::span<const std::string_view> pairs, ClientFilter* out) {
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    std::string_view name = pairs[i], value = pairs[i + 1];
    if (EqualsIgnoreCase(name, "ID")) {
      int64_t id;
      if (!ParseInt64(value, &id) || id <= 0) return std::string(errors::kClientIdNotPositive);
      out->id = static_cast<uint64_t>(id);
    } else if (EqualsIgnoreCase(name, "ADDR")) {
      out->addr = value;
    } else if (EqualsIgnoreCase(name, "LADDR")) {
      out->laddr = value;
    } else if (EqualsIgnoreCase(name, "USER")) {
      if (value != "default") return errors::NoSuchUser(value);
      out->user = value;
    } else if (EqualsIgnoreCase(name, "SKIPME")) {
      if (EqualsIgnoreCase(value, "yes"))
        out->skip_me = true;
      else if (EqualsIgnoreCase(value, "no"))
        out->skip_me = false;
      else
        return std::string(errors::kSyntax);
    } else if (EqualsIgnoreCase(name, "MAXAGE")) {
      int64_t age;
      if (!ParseInt64(value, &age)) return std::string(errors::kNotInteger);
      out->max_age_s = age;
    } else if (EqualsIgnoreCase(name, "TYPE")) {
      ClientType type;
      if (!ParseClientType(value, &type)) return errors::UnknownClientType(value);
      out->type = type;
    } else {
      return std::string(errors::kSyntax);
    }
  }
  return "";
}

}  // namespace ordis::server
