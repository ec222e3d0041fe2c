// The outcome of a persistence operation: ok, or a message for the operator that names the file
// and, for format errors, the byte offset where reading stopped.
#pragma once

#include <string>
#include <utility>

namespace ordis::persistence {

class Status {
 public:
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return message_.empty(); }
  const std::string& message() const { return message_; }

 private:
  Status() = default;
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::string message_;
};

}  // namespace ordis::persistence
