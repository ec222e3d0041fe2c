// Reply writer for RESP2 and RESP3. One per connection; HELLO switches its protocol version.
// RESP3-only types degrade the way Redis 7.0 degrades them on RESP2: maps become flat arrays, sets
// arrays, doubles bulk strings ("%.17g", "inf", "-inf"), booleans integers, verbatim strings bulk
// strings, every null "$-1" (or "*-1" for a null array).
//
// Thread safety: none.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "resp/out_buffer.h"

namespace ordis::resp {

class Writer {
 public:
  explicit Writer(OutBuffer* out) : out_(out) {}

  void set_protocol(int version) { protocol_ = version; }
  int protocol() const { return protocol_; }

  void SimpleString(std::string_view s);  // "+s\r\n"
  void Ok() { SimpleString("OK"); }
  // `message` is the whole error text without '-' and CRLF, e.g. "ERR syntax error".
  // CR and LF inside it are replaced by spaces, as Redis does.
  void Error(std::string_view message);
  void Integer(int64_t v);        // ":v\r\n"
  void Bulk(std::string_view s);  // "$len\r\ns\r\n"
  void NullBulk();                // RESP2 "$-1", RESP3 "_"
  void NullArray();               // RESP2 "*-1", RESP3 "_"
  void ArrayHeader(int64_t n);    // "*n"
  void MapHeader(int64_t n);      // RESP3 "%n", RESP2 "*2n"
  void SetHeader(int64_t n);      // RESP3 "~n", RESP2 "*n"
  void PushHeader(int64_t n);     // RESP3 ">n", RESP2 "*n"
  void Double(double d);          // RESP3 ",d", RESP2 bulk; "%.17g", inf, -inf, nan
  void BulkDouble(double d);      // a bulk string of Double's text in both protocols
  void Bool(bool b);              // RESP3 "#t"/"#f", RESP2 ":1"/":0"
  // RESP3 "=len\r\nfmt:text", RESP2 bulk of text. `format` is three characters, e.g. "txt".
  void Verbatim(std::string_view format, std::string_view text);
  void BigNumber(std::string_view digits);  // RESP3 "(digits", RESP2 bulk
  // Pre-encoded protocol bytes, copied as they are.
  void Raw(std::string_view bytes) { out_->Append(bytes); }

  OutBuffer* out() const { return out_; }
  // Error replies written so far (Error() increments it), for failed_calls statistics.
  size_t errors_written() const { return errors_written_; }
  // How many of those statistics have counted: a transaction's commands count their own errors,
  // so EXEC, which wrote them too, counts none again.
  size_t errors_counted() const { return errors_counted_; }
  void MarkErrorsCounted() { errors_counted_ = errors_written_; }
  // The code of the last error written (INFO errorstats): its first word if a space comes within
  // its first 32 bytes, else "ERR", as Redis's afterErrorReply.
  std::string_view last_error_code() const { return {error_code_, error_code_len_}; }
  // Redirects replies (CLIENT REPLY OFF writes into a scratch buffer).
  void set_out(OutBuffer* out) { out_ = out; }

 private:
  void Header(char type, int64_t n);
  OutBuffer* out_;
  int protocol_ = 2;
  size_t errors_written_ = 0;
  size_t errors_counted_ = 0;
  char error_code_[32];
  size_t error_code_len_ = 0;
};

// Frames in a plain string, where no Writer is at hand: a bulk string ("$len\r\ns\r\n"), and a
// command as a client sends it (an array of bulk strings: the append-only log's records,
// MIGRATE's requests).
void AppendBulk(std::string* out, std::string_view s);
void AppendCommand(std::string* out, std::span<const std::string_view> args);

}  // namespace ordis::resp
