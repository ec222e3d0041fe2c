// The request parser: a read needs the value unless the batch overwrote the key before it, each
// key once and in order, and a discarded transaction's uses are forgotten.
#include "offload/request_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ordis::offload {
namespace {

std::vector<std::string> Needed(RequestParser& parser) {
  std::vector<std::string> out;
  for (const KeyUse& use : parser.Needed())
    out.push_back(std::to_string(use.db) + ":" + std::string(use.key));
  return out;
}

TEST(RequestParser, ReadsBeforeAnOverwriteNeedTheValue) {
  RequestParser parser;
  parser.Add(0, "a", KeyOp::kRead);       // GET a
  parser.Add(0, "b", KeyOp::kOverwrite);  // SET b
  parser.Add(0, "b", KeyOp::kRead);       // GET b: sees the SET's value
  parser.Add(0, "a", KeyOp::kOverwrite);  // SET a: a was read first
  parser.Add(1, "b", KeyOp::kReadWrite);  // another database's b
  parser.Add(0, "c", KeyOp::kMetadata);   // EXISTS c: its header only
  parser.Add(0, "e", KeyOp::kMetadata);   // EXISTS e
  parser.Add(0, "e", KeyOp::kRead);       // GET e: the EXISTS changed nothing, e is read
  parser.Add(0, "d", KeyOp::kReadWrite);
  parser.Add(0, "a", KeyOp::kRead);  // once
  EXPECT_EQ(Needed(parser), (std::vector<std::string>{"0:a", "1:b", "0:e", "0:d"}));
  parser.Clear();
  EXPECT_TRUE(parser.empty());
  parser.Add(0, "b", KeyOp::kRead);
  EXPECT_EQ(Needed(parser), (std::vector<std::string>{"0:b"}));
}

TEST(RequestParser, ADiscardedTransactionIsForgotten) {
  RequestParser parser;
  parser.Add(0, "a", KeyOp::kRead);
  parser.BeginTransaction();
  parser.Add(0, "b", KeyOp::kOverwrite);  // queued SET b, then DISCARD
  parser.Add(0, "c", KeyOp::kRead);
  parser.DiscardTransaction();
  parser.Add(0, "b", KeyOp::kRead);  // runs: needs b's value after all
  EXPECT_EQ(Needed(parser), (std::vector<std::string>{"0:a", "0:b"}));
  parser.BeginTransaction();
  parser.Add(0, "e", KeyOp::kReadWrite);  // queued, and run by the EXEC: kept
  parser.Add(0, "a", KeyOp::kOverwrite);
  EXPECT_EQ(Needed(parser), (std::vector<std::string>{"0:a", "0:b", "0:e"}));
  parser.ExecTransaction();
  parser.DiscardTransaction();  // no transaction: nothing
  EXPECT_EQ(Needed(parser), (std::vector<std::string>{"0:a", "0:b", "0:e"}));
  parser.BeginTransaction();
  parser.Add(0, "f", KeyOp::kRead);
  parser.DiscardTransaction();
  EXPECT_EQ(Needed(parser), (std::vector<std::string>{"0:a", "0:b", "0:e"}));
}

}  // namespace
}  // namespace ordis::offload
