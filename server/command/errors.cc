#include "server/command/errors.h"

#include <cctype>

namespace ordis::server::errors {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Redis truncates quoted client text to 128 bytes in these messages (sdscatrepr of a prefix).
std::string_view Clip(std::string_view s) { return s.substr(0, 128); }

// addReplyErrorFormat's text: '%s' stops at a NUL byte, and newlines become spaces.
std::string Formatted(std::string_view s) {
  std::string out(s.substr(0, s.find('\0')));
  for (char& c : out) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return out;
}

}  // namespace

std::string WrongArity(std::string_view command) {
  return "ERR wrong number of arguments for '" + Lower(command) + "' command";
}

std::string NoPermCommand(std::string_view full_name) {
  return "NOPERM this user has no permissions to run the '" + std::string(full_name) + "' command";
}

std::string UnknownCommand(std::string_view command, const std::string_view* args, size_t nargs) {
  // As processCommand: the quoted arguments together print at most 128 bytes of argument text.
  std::string quoted;
  for (size_t i = 0; i < nargs && quoted.size() < 128; ++i) {
    quoted += "'";
    quoted += args[i].substr(0, 128 - quoted.size() + 1);
    quoted += "' ";
  }
  return "ERR unknown command '" + std::string(Clip(command)) +
         "', with args beginning with: " + quoted;
}

std::string UnknownSubcommand(std::string_view command, std::string_view sub) {
  return "ERR unknown subcommand '" + std::string(Clip(sub)) + "'. Try " + Upper(command) +
         " HELP.";
}

std::string HelloSyntax(std::string_view option) {
  return "ERR Syntax error in HELLO option '" + std::string(option) + "'";
}

std::string UnknownClientType(std::string_view type) {
  return "ERR Unknown client type '" + std::string(type) + "'";
}

std::string UnsupportedOption(std::string_view option) {
  return "ERR Unsupported option " + std::string(option);
}

std::string NoSuchUser(std::string_view user) {
  return "ERR No such user '" + std::string(user) + "'";
}

std::string DebugUnknownSubcommand(std::string_view sub) {
  return "ERR unknown subcommand or wrong number of arguments for '" + std::string(sub) +
         "'. Try DEBUG HELP.";
}

std::string SubcommandSyntax(std::string_view container, std::string_view sub) {
  return "ERR unknown subcommand or wrong number of arguments for '" + std::string(Clip(sub)) +
         "'. Try " + Upper(container) + " HELP.";
}

std::string NotInSubscriberMode(std::string_view full_name) {
  return "ERR Can't execute '" + std::string(full_name) +
         "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
         "context";
}

std::string AtLeastOneInputKey(std::string_view command) {
  return "ERR at least 1 input key is needed for '" + Lower(command) + "' command";
}

std::string InvalidExpireTime(std::string_view command) {
  return "ERR invalid expire time in '" + Lower(command) + "' command";
}

std::string NoSuchKeyOrGroup(std::string_view key, std::string_view group,
                             std::string_view suffix) {
  return "NOGROUP No such key '" + Formatted(key) + "' or consumer group '" + Formatted(group) +
         "'" + std::string(suffix);
}

std::string NoSuchGroupForKey(std::string_view group, std::string_view key) {
  return "NOGROUP No such consumer group '" + Formatted(group) + "' for key name '" +
         Formatted(key) + "'";
}

std::string StreamInvalidArgument(std::string_view what, std::string_view command) {
  return "ERR Invalid " + std::string(what) + " argument for " + std::string(command);
}

std::string UnrecognizedXClaimOption(std::string_view option) {
  return "ERR Unrecognized XCLAIM option '" + Formatted(option) + "'";
}

std::string TrackingPrefixOverlap(std::string_view prefix, std::string_view other, bool existing) {
  return "ERR Prefix '" + std::string(prefix) + "' overlaps with " +
         (existing ? "an existing" : "another provided") + " prefix '" + std::string(other) +
         "'. Prefixes for a single client must not overlap.";
}

std::string SetInfoUnrecognized(std::string_view option) {
  return "ERR Unrecognized option '" + std::string(option) + "'";
}

std::string SetInfoBadValue(std::string_view option) {
  return "ERR " + std::string(option) + " cannot contain spaces, newlines or special characters.";
}

}  // namespace ordis::server::errors
