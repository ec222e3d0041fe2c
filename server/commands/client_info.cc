#include "server/commands/client_info.h"

#include "server/command/arg_parser.h"
#include "server/command/command_table.h"

namespace ordis::server {

bool ParseClientType(std::string_view name, ClientType* out) {
  if (EqualsIgnoreCase(name, "normal")) {
    *out = ClientType::kNormal;
    return true;
  }
  for (std::string_view other : {"master", "replica", "slave", "pubsub"}) {
    if (EqualsIgnoreCase(name, other)) {
      *out = ClientType::kOther;
      return true;
    }
  }
  return false;
}

bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

void AppendClientInfo(const CommandTable& commands, const ClientState& c, int64_t now_ms,
                      std::string* out) {
  auto num = [&](std::string_view field, int64_t v) {
    out->append(field);
    out->push_back('=');
    AppendInt64(out, v);
    out->push_back(' ');
  };
  auto str = [&](std::string_view field, std::string_view v) {
    out->append(field);
    out->push_back('=');
    out->append(v);
    out->push_back(' ');
  };
  num("id", static_cast<int64_t>(c.id));
  str("addr", c.addr);
  str("laddr", c.laddr);
  num("fd", c.fd);
  str("name", c.name);
  num("age", (now_ms - c.created_ms) / 1000);
  num("idle", (now_ms - c.last_interaction_ms.load(std::memory_order_relaxed)) / 1000);
  int multi = c.multi_count.load(std::memory_order_relaxed);
  str("flags", multi >= 0 ? "x" : "N");
  num("db", c.db.load(std::memory_order_relaxed));
  num("sub", 0);
  num("psub", 0);
  num("ssub", 0);
  num("multi", multi);
  int64_t qbuf = static_cast<int64_t>(c.query_buffer_bytes.load(std::memory_order_relaxed));
  int64_t omem = static_cast<int64_t>(c.output_buffer_bytes.load(std::memory_order_relaxed));
  num("qbuf", qbuf);
  num("qbuf-free", 0);
  num("argv-mem", 0);
  num("multi-mem", 0);
  num("rbs", 16384);
  num("rbp", 0);
  num("obl", 0);
  num("oll", 0);
  num("omem", omem);
  num("tot-mem", qbuf + omem);
  str("events", "r");
  int cmd_id = c.last_command_id.load(std::memory_order_relaxed);
  const auto& all = commands.flat();
  str("cmd", cmd_id >= 0 && cmd_id < static_cast<int>(all.size()) ? all[cmd_id]->name : "NULL");
  str("user", "default");
  num("redir", -1);
  out->append("resp=");
  AppendInt64(out, c.protocol.load(std::memory_order_relaxed));
  out->push_back('\n');
}

bool ClientFilter::Matches(const ClientState& c, int64_t now_ms) const {
  if (type_other) return false;
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
      if (type == ClientType::kNormal) {
        out->type_normal_only = true;
      } else {
        out->type_other = true;
      }
    } else {
      return std::string(errors::kSyntax);
    }
  }
  return "";
}

}  // namespace ordis::server
