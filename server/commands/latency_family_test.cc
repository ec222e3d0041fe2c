#include <algorithm>
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class LatencyFamilyTest : public FamilyTest {
 protected:
  LatencyFamilyTest() : FamilyTest({{"enable-debug-command", "yes"}}) {}

  std::string Info(const std::string& section) { return Run({"info", section}).str; }
};

TEST_F(LatencyFamilyTest, MonitorRecordsCommandsOverTheThreshold) {
  EXPECT_EQ(Run({"latency", "latest"}), Array({}));
  Run({"debug", "sleep", "0.02"});  // the monitor is off (threshold 0): nothing recorded
  EXPECT_EQ(Run({"latency", "latest"}), Array({}));

  EXPECT_EQ(Run({"config", "set", "latency-monitor-threshold", "10"}), Ok());
  Run({"debug", "sleep", "0.02"});
  Run({"ping"});  // fast and quick: under the threshold
  Reply latest = Run({"latency", "latest"});
  ASSERT_EQ(latest.elements.size(), 1u) << latest;
  const Reply& event = latest.elements[0];
  ASSERT_EQ(event.elements.size(), 4u);
  EXPECT_EQ(event.elements[0], Bulk("command"));  // DEBUG is not a fast command
  EXPECT_GE(event.elements[2].integer, 20);
  EXPECT_EQ(event.elements[2], event.elements[3]);  // latest and all-time maximum

  Reply history = Run({"latency", "history", "command"});
  ASSERT_EQ(history.elements.size(), 1u);
  EXPECT_EQ(history.elements[0].elements[0], event.elements[1]);
  EXPECT_EQ(history.elements[0].elements[1], event.elements[2]);
  EXPECT_EQ(Run({"latency", "history", "nosuchevent"}), Array({}));

  EXPECT_EQ(Run({"latency", "graph", "command"}).type, Reply::Type::kBulk);
  EXPECT_EQ(Run({"latency", "graph", "nosuchevent"}),
            Err("ERR No samples available for event 'nosuchevent'"));
  EXPECT_EQ(Run({"latency", "reset", "nosuchevent"}), Int(0));
  EXPECT_EQ(Run({"latency", "reset"}), Int(1));
  EXPECT_EQ(Run({"latency", "latest"}), Array({}));
}

TEST_F(LatencyFamilyTest, HistogramCountsEachCommandsCalls) {
  for (int i = 0; i < 5; ++i) Run({"set", "k", "v"});
  Run({"get", "k"});
  Reply h = Run({"latency", "histogram", "set", "nosuchcommand"});
  // RESP2 flattens the maps: name, then calls and the buckets.
  ASSERT_EQ(h.elements.size(), 2u) << h;
  EXPECT_EQ(h.elements[0], Bulk("set"));
  const Reply& body = h.elements[1];
  ASSERT_EQ(body.elements.size(), 4u);
  EXPECT_EQ(body.elements[0], Bulk("calls"));
  EXPECT_EQ(body.elements[1], Int(5));
  EXPECT_EQ(body.elements[2], Bulk("histogram_usec"));
  ASSERT_GE(body.elements[3].elements.size(), 2u);
  // Cumulative counts end at the number of calls.
  EXPECT_EQ(body.elements[3].elements.back(), Int(5));

  Reply all = Run({"latency", "histogram"});
  std::vector<std::string> names;
  for (size_t i = 0; i < all.elements.size(); i += 2) names.push_back(all.elements[i].str);
  EXPECT_NE(std::find(names.begin(), names.end(), "get"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "set"), names.end());

  EXPECT_EQ(Run({"config", "set", "latency-tracking", "no"}), Ok());
  Run({"config", "resetstat"});
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"latency", "histogram", "set"}), Array({}));
}

TEST_F(LatencyFamilyTest, InfoReportsErrorsByCodeAndPercentiles) {
  Run({"rpush", "l", "a"});
  Run({"get", "l"});
  Run({"get", "l"});
  Run({"nosuchcommand"});
  const std::string errors = Info("errorstats");
  EXPECT_NE(errors.find("errorstat_WRONGTYPE:count=2\r\n"), std::string::npos) << errors;
  EXPECT_NE(errors.find("errorstat_ERR:count=1\r\n"), std::string::npos) << errors;
  const std::string latency = Info("latencystats");
  EXPECT_NE(latency.find("latency_percentiles_usec_rpush:p50="), std::string::npos) << latency;
  EXPECT_NE(latency.find(",p99="), std::string::npos);
  EXPECT_NE(latency.find(",p99.9="), std::string::npos);
  Run({"config", "resetstat"});
  EXPECT_EQ(Info("errorstats").find("errorstat_WRONGTYPE"), std::string::npos);
}

}  // namespace
}  // namespace ordis::server::test
