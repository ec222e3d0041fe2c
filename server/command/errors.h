// Every error text sent to clients, byte-identical to Redis 7.0's (without '-' and CRLF).
#pragma once

#include <string>
#include <string_view>

namespace ordis::server::errors {

inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kIncrFloatNaN = "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
// Blocking commands (BLPOP ... XREAD BLOCK).
inline constexpr std::string_view kTimeoutNotFloat = "ERR timeout is not a float or out of range";
inline constexpr std::string_view kTimeoutNotInteger =
    "ERR timeout is not an integer or out of range";
inline constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";
inline constexpr std::string_view kClientUnblockReason =
    "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR";
inline constexpr std::string_view kUnblockedByClient =
    "UNBLOCKED client unblocked via CLIENT UNBLOCK";
inline constexpr std::string_view kUnblockedStreamDeleted =
    "UNBLOCKED the stream key no longer exists";
inline constexpr std::string_view kDbIndexOutOfRange = "ERR DB index is out of range";
inline constexpr std::string_view kInvalidDbIndex = "ERR invalid DB index";
inline constexpr std::string_view kSameObject = "ERR source and destination objects are the same";
// DUMP, RESTORE, MIGRATE.
inline constexpr std::string_view kBusyKey = "BUSYKEY Target key name already exists.";
inline constexpr std::string_view kDumpPayload = "ERR DUMP payload version or checksum are wrong";
inline constexpr std::string_view kBadDataFormat = "ERR Bad data format";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kNoPermKey =
    "NOPERM this user has no permissions to access one of the keys used as arguments";
inline constexpr std::string_view kNoPermChannel =
    "NOPERM this user has no permissions to access one of the channels used as arguments";
// "NOPERM this user has no permissions to run the 'get' command" (the full name: 'acl|whoami').
std::string NoPermCommand(std::string_view full_name);
// EXEC's reply for a queued command the user's rules no longer allow (Redis 7.0 execCommand).
inline constexpr std::string_view kNoPermCommandAtExec =
    "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC "
    "call. This command is no longer allowed for the following reason: no permission to "
    "execute the command or subcommand";
inline constexpr std::string_view kNoPermKeyAtExec =
    "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC "
    "call. This command is no longer allowed for the following reason: no permission to "
    "touch the specified keys";
inline constexpr std::string_view kNoPermChannelAtExec =
    "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC "
    "call. This command is no longer allowed for the following reason: no permission to "
    "access one of the channels used as arguments";
// Protected mode's reply to a client it refuses (Redis 7.0's words, typo included), sent before
// closing the connection.
inline constexpr std::string_view kProtectedModeDenied =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no password "
    "is set for the default user. In this mode connections are only accepted from the loopback "
    "interface. If you want to connect from external computers to Redis you may adopt one of the "
    "following solutions: 1) Just disable protected mode sending the command 'CONFIG SET "
    "protected-mode no' from the loopback interface by connecting to Redis from the same host the "
    "server is running, however MAKE SURE Redis is not publicly accessible from internet if you do "
    "so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable "
    "the protected mode by editing the Redis configuration file, and setting the protected mode "
    "option to 'no', and then restarting the server. 3) If you started the server manually just "
    "for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication "
    "password for the default user. NOTE: You only need to do one of the above things in order for "
    "the server to start accepting connections from the outside.\r\n";
inline constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kAuthNotConfigured =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr std::string_view kNoProto = "NOPROTO unsupported protocol version";
inline constexpr std::string_view kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kOffsetOutOfRange = "ERR offset is out of range";
inline constexpr std::string_view kInvalidLexRange = "ERR min or max not valid string range item";
inline constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
inline constexpr std::string_view kMultiNested = "ERR MULTI calls can not be nested";
inline constexpr std::string_view kExecWithoutMulti = "ERR EXEC without MULTI";
inline constexpr std::string_view kDiscardWithoutMulti = "ERR DISCARD without MULTI";
inline constexpr std::string_view kWatchInMulti = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view kNotAllowedInMulti =
    "ERR Command not allowed inside a transaction";
// Prefix of the reply to an EXEC rejected inside MULTI; the rejection's text (without "ERR ")
// follows.
inline constexpr std::string_view kExecAbortBecause =
    "EXECABORT Transaction discarded because of: ";
inline constexpr std::string_view kExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr std::string_view kNoSuchClient = "ERR No such client";
// Scripts (EVAL, FCALL) and the commands they call.
inline constexpr std::string_view kScriptUnknownCommand =
    "ERR Unknown Redis command called from script";
inline constexpr std::string_view kScriptWrongArity =
    "ERR Wrong number of args calling Redis command from script";
inline constexpr std::string_view kScriptNotAllowed =
    "ERR This Redis command is not allowed from script";
inline constexpr std::string_view kScriptWriteInReadOnly =
    "ERR Write commands are not allowed from read-only scripts.";
inline constexpr std::string_view kScriptNoPermCommand =
    "ERR The user executing the script can't run this command or subcommand";
inline constexpr std::string_view kScriptNoPermKey =
    "ERR The user executing the script can't access at least one of the keys mentioned in the "
    "command arguments";
inline constexpr std::string_view kScriptNoPermChannel =
    "ERR The user executing the script can't publish to the channel mentioned in the command";
inline constexpr std::string_view kScriptWriteFlagInRo =
    "ERR Can not execute a script with write flag using *_ro command.";
inline constexpr std::string_view kNoScript = "NOSCRIPT No matching script. Please use EVAL.";
inline constexpr std::string_view kNumKeysNegative = "ERR Number of keys can't be negative";
inline constexpr std::string_view kNotBusy = "NOTBUSY No scripts in execution right now.";
inline constexpr std::string_view kBusyScript =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
inline constexpr std::string_view kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
inline constexpr std::string_view kUnkillable =
    "UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
    "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
    "NOSAVE command.";
inline constexpr std::string_view kScriptKilled = "ERR Script killed by user with SCRIPT KILL...";
// MONITOR clients are replicas to Redis, kept away from the keyspace.
inline constexpr std::string_view kReplicaKeyspace = "ERR Replica can't interact with the keyspace";
// CLIENT TRACKING, CLIENT CACHING.
inline constexpr std::string_view kTrackingPrefixNeedsBcast =
    "ERR PREFIX option requires BCAST mode to be enabled";
inline constexpr std::string_view kTrackingBcastSwitch =
    "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then "
    "re-enabling it with a different mode.";
inline constexpr std::string_view kTrackingOptInOutBcast =
    "ERR OPTIN and OPTOUT are not compatible with BCAST";
inline constexpr std::string_view kTrackingOptInAndOut =
    "ERR You can't specify both OPTIN mode and OPTOUT mode";
inline constexpr std::string_view kTrackingOptInOutSwitch =
    "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
    "re-enabling it with a different mode.";
inline constexpr std::string_view kTrackingOneRedirect =
    "ERR A client can only redirect to a single other client";
inline constexpr std::string_view kTrackingNoRedirectClient =
    "ERR The client ID you want redirect to does not exist";
inline constexpr std::string_view kCachingNeedsTracking =
    "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
    "OPTOUT mode enabled";
inline constexpr std::string_view kCachingYesNeedsOptIn =
    "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.";
inline constexpr std::string_view kCachingNoNeedsOptOut =
    "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.";
// CLIENT PAUSE.
inline constexpr std::string_view kPauseTimeoutNotInteger =
    "ERR timeout is not an integer or out of range";
inline constexpr std::string_view kPauseTimeoutNegative = "ERR timeout is negative";
inline constexpr std::string_view kPauseMode = "ERR CLIENT PAUSE mode must be WRITE or ALL";
inline constexpr std::string_view kMonitorInTransaction =
    "ERR MONITOR isn't allowed for DENY BLOCKING client";
inline constexpr std::string_view kClientNameSpaces =
    "ERR Client names cannot contain spaces, newlines or special characters.";
inline constexpr std::string_view kNoConfigFile = "ERR The server is running without a config file";
inline constexpr std::string_view kNxAndXxGtLt =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
inline constexpr std::string_view kGtLtNx =
    "ERR GT, LT, and/or NX options at the same time are not compatible";
inline constexpr std::string_view kXxAndNx =
    "ERR XX and NX options at the same time are not compatible";
inline constexpr std::string_view kIncrSinglePair =
    "ERR INCR option supports a single increment-element pair";
inline constexpr std::string_view kScoreNaN = "ERR resulting score is not a number (NaN)";
inline constexpr std::string_view kMinMaxNotFloat = "ERR min or max is not a float";
inline constexpr std::string_view kWithScoresByLex =
    "ERR syntax error, WITHSCORES not supported in combination with BYLEX";
inline constexpr std::string_view kWeightNotFloat = "ERR weight value is not a float";
inline constexpr std::string_view kLimitNeedsByScoreOrLex =
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
// Count and numkeys arguments (getPositiveLongFromObjectOrReply and friends).
inline constexpr std::string_view kOutOfRange = "ERR value is out of range";
inline constexpr std::string_view kNotPositive = "ERR value is out of range, must be positive";
inline constexpr std::string_view kSRandCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
inline constexpr std::string_view kNumKeysNotPositive = "ERR numkeys should be greater than 0";
inline constexpr std::string_view kCountNotPositive = "ERR count should be greater than 0";
inline constexpr std::string_view kNumKeysTooMany =
    "ERR Number of keys can't be greater than number of args";
inline constexpr std::string_view kLimitNegative = "ERR LIMIT can't be negative";

inline constexpr std::string_view kProtoVersionNotInteger =
    "ERR Protocol version is not an integer or out of range";
inline constexpr std::string_view kHelloNoAuth =
    "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH "
    "<user> <pass> option can be used to authenticate the client and select the RESP protocol "
    "version at the same time";
inline constexpr std::string_view kInvalidClientId = "ERR Invalid client ID";
inline constexpr std::string_view kClientIdNotPositive = "ERR client-id should be greater than 0";
inline constexpr std::string_view kGtAndLt =
    "ERR GT and LT options at the same time are not compatible";
inline constexpr std::string_view kHashValueNotInteger = "ERR hash value is not an integer";
inline constexpr std::string_view kHashValueNotFloat = "ERR hash value is not a float";
inline constexpr std::string_view kValueNaNOrInfinity = "ERR value is NaN or Infinity";
inline constexpr std::string_view kInvalidFirstDbIndex = "ERR invalid first DB index";
inline constexpr std::string_view kInvalidSecondDbIndex = "ERR invalid second DB index";
inline constexpr std::string_view kLfuSelectedNoIdletime =
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
    "switching between policies at runtime LRU and LFU data will take some time to adjust.";
inline constexpr std::string_view kLfuNotSelected =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that "
    "when switching between policies at runtime LRU and LFU data will take some time to adjust.";
inline constexpr std::string_view kIndexOutOfRange = "ERR index out of range";
inline constexpr std::string_view kCountNegative = "ERR COUNT can't be negative";
inline constexpr std::string_view kMaxlenNegative = "ERR MAXLEN can't be negative";
inline constexpr std::string_view kClusterDisabled =
    "ERR This instance has cluster support disabled";
inline constexpr std::string_view kDebugReloadOptions =
    "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.";
inline constexpr std::string_view kDebugReloadSave = "ERR Error trying to save the DB";
inline constexpr std::string_view kDebugReloadLoad =
    "ERR Error trying to load the RDB dump, check server logs.";
inline constexpr std::string_view kResp2NotSupported = "ERR RESP2 is not supported by this command";
inline constexpr std::string_view kDebugProtocolType =
    "ERR Wrong protocol type name. Please use one of the following: "
    "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false";
inline constexpr std::string_view kDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kShutdownFailed = "ERR Errors trying to SHUTDOWN. Check logs.";
inline constexpr std::string_view kBgSaveInProgress = "ERR Background save already in progress";
inline constexpr std::string_view kBgSaveOtherChild =
    "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in "
    "order to schedule a BGSAVE whenever possible.";
inline constexpr std::string_view kNoShutdownInProgress = "ERR No shutdown in progress.";
inline constexpr std::string_view kDecrementOverflow = "ERR decrement would overflow";
inline constexpr std::string_view kInvalidCommandSpecified = "ERR Invalid command specified";
inline constexpr std::string_view kInvalidArgCountSpecified =
    "ERR Invalid number of arguments specified for command";
inline constexpr std::string_view kNoKeyArguments = "ERR The command has no key arguments";

inline constexpr std::string_view kRankZero =
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
    "negative to start from the end of the list";

// Streams (t_stream.c).
inline constexpr std::string_view kInvalidStreamId =
    "ERR Invalid stream ID specified as stream command argument";
inline constexpr std::string_view kXAddIdTooSmall =
    "ERR The ID specified in XADD is equal or smaller than the target stream top item";
inline constexpr std::string_view kXAddIdZero =
    "ERR The ID specified in XADD must be greater than 0-0";
inline constexpr std::string_view kStreamExhausted =
    "ERR The stream has exhausted the last possible ID, unable to add more items";
inline constexpr std::string_view kStreamElementsTooLarge =
    "ERR Elements are too large to be stored";
inline constexpr std::string_view kMaxLenAndMinId =
    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";
inline constexpr std::string_view kStreamMaxLenNegative = "ERR The MAXLEN argument must be >= 0.";
inline constexpr std::string_view kStreamLimitNegative = "ERR The LIMIT argument must be >= 0.";
inline constexpr std::string_view kLimitWithoutStrategy =
    "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy";
inline constexpr std::string_view kXTrimWithoutStrategy =
    "ERR syntax error, XTRIM must be called with a trimming strategy";
inline constexpr std::string_view kLimitWithoutApprox =
    "ERR syntax error, LIMIT cannot be used without the special ~ option";
inline constexpr std::string_view kInvalidStartId = "ERR invalid start ID for the interval";
inline constexpr std::string_view kInvalidEndId = "ERR invalid end ID for the interval";
inline constexpr std::string_view kGroupOnlyXReadGroup =
    "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.";
inline constexpr std::string_view kNoAckOnlyXReadGroup =
    "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.";
inline constexpr std::string_view kMissingGroup = "ERR Missing GROUP option for XREADGROUP";
inline constexpr std::string_view kDollarInXReadGroup =
    "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of "
    "this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would "
    "just return an empty result set.";
inline constexpr std::string_view kGreaterOnlyXReadGroup =
    "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
    "<consumer> option.";
inline constexpr std::string_view kBusyGroup = "BUSYGROUP Consumer Group name already exists";
inline constexpr std::string_view kXGroupKeyMissing =
    "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to "
    "use the MKSTREAM option to create an empty stream automatically.";
inline constexpr std::string_view kEntriesReadNegative =
    "ERR value for ENTRIESREAD must be positive or -1";
inline constexpr std::string_view kEntriesAddedNegative = "ERR entries_added must be positive";
inline constexpr std::string_view kXSetIdBelowGivenMaxDeleted =
    "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id";
inline constexpr std::string_view kXSetIdBelowTop =
    "ERR The ID specified in XSETID is smaller than the target stream top item";
inline constexpr std::string_view kXSetIdEntriesAddedBelowLength =
    "ERR The entries_added specified in XSETID is smaller than the target stream length";
inline constexpr std::string_view kXAutoClaimCount = "ERR COUNT must be > 0";
inline constexpr std::string_view kGroupDestroyedWhileBlocked =
    "NOGROUP the consumer group this client was blocked on no longer exists";
inline constexpr std::string_view kUnbalancedStreams =
    "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.";
// "NOGROUP No such key 'k' or consumer group 'g'" and the suffix (" in XREADGROUP with GROUP
// option").
std::string NoSuchKeyOrGroup(std::string_view key, std::string_view group,
                             std::string_view suffix = {});
// "NOGROUP No such consumer group 'g' for key name 'k'"
std::string NoSuchGroupForKey(std::string_view group, std::string_view key);
// "ERR Invalid min-idle-time argument for XCLAIM" and the like: what, command.
std::string StreamInvalidArgument(std::string_view what, std::string_view command);
// "ERR Unrecognized XCLAIM option 'foo'"
std::string UnrecognizedXClaimOption(std::string_view option);

// "ERR Syntax error in HELLO option 'foo'"
std::string HelloSyntax(std::string_view option);
// "ERR Unknown client type 'foo'"
std::string UnknownClientType(std::string_view type);
// "ERR Unsupported option foo" (EXPIRE family)
std::string UnsupportedOption(std::string_view option);
// "ERR No such user 'foo'"
std::string NoSuchUser(std::string_view user);
// "ERR unknown subcommand or wrong number of arguments for 'foo'. Try DEBUG HELP."
std::string DebugUnknownSubcommand(std::string_view sub);
// "ERR unknown subcommand or wrong number of arguments for 'CAT'. Try ACL HELP." (sub as typed):
// Redis's addReplySubcommandSyntaxError, for a subcommand whose own arity check passed.
std::string SubcommandSyntax(std::string_view container, std::string_view sub);
// "ERR wrong number of arguments for 'get' command"
std::string WrongArity(std::string_view command);
// "ERR unknown command 'foo', with args beginning with: 'a' 'b' "
std::string UnknownCommand(std::string_view command, const std::string_view* args, size_t nargs);
// "ERR unknown subcommand 'foo'. Try CLIENT HELP."
std::string UnknownSubcommand(std::string_view command, std::string_view sub);
// "ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are
// allowed in this context": a RESP2 client in subscriber mode (the full name: 'client|list').
std::string NotInSubscriberMode(std::string_view full_name);
// CLIENT TRACKING BCAST: prefix overlaps one the client has (existing) or another one given.
std::string TrackingPrefixOverlap(std::string_view prefix, std::string_view other, bool existing);
// CLIENT SETINFO (Redis 7.2).
std::string SetInfoUnrecognized(std::string_view option);
std::string SetInfoBadValue(std::string_view option);
// "ERR at least 1 input key is needed for 'zunion' command"
std::string AtLeastOneInputKey(std::string_view command);
// "ERR invalid expire time in 'set' command"
std::string InvalidExpireTime(std::string_view command);

}  // namespace ordis::server::errors
