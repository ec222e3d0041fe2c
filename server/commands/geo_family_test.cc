// GEOADD GEODIST GEOHASH GEOPOS GEOSEARCH GEOSEARCHSTORE GEORADIUS GEORADIUSBYMEMBER and the _RO
// forms, in-process. The expectations of the scripted tests are redis-server 7.0.15's replies to
// the same commands, recorded from it; each test runs on both forms of a sorted set (the small
// packed one and the tree, zset-max-listpack-entries 0). The search itself is also checked against
// a scan of the whole set.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "server/commands/family_test_support.h"
#include "server/types/geohash.h"

namespace ordis::server::test {
namespace {

enum class Form { kListpack, kSkiplist };

class GeoFamilyTest : public FamilyTest, public ::testing::WithParamInterface<Form> {
 protected:
  GeoFamilyTest()
      : FamilyTest({{"zset-max-listpack-entries", GetParam() == Form::kListpack ? "128" : "0"}}) {}

  static std::string Encoding() { return GetParam() == Form::kListpack ? "listpack" : "skiplist"; }
};

INSTANTIATE_TEST_SUITE_P(, GeoFamilyTest, ::testing::Values(Form::kListpack, Form::kSkiplist),
                         [](const ::testing::TestParamInfo<Form>& info) {
                           return info.param == Form::kListpack ? "listpack" : "skiplist";
                         });

TEST_P(GeoFamilyTest, GeoAddAndPositions) {
  EXPECT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(Run({"zrange", "Sicily", "0", "-1", "withscores"}),
            Strings({"Palermo", "3479099956230698", "Catania", "3479447370796909"}));
  EXPECT_EQ(Run({"geopos", "Sicily", "Palermo", "Catania", "NonExisting"}),
            Array({Strings({"13.36138933897018433", "38.11555639549629859"}),
                   Strings({"15.08726745843887329", "37.50266842333162032"}), NilArray()}));
  EXPECT_EQ(Run({"geohash", "Sicily", "Palermo", "Catania", "NonExisting"}),
            Array({Bulk("sqc8b49rny0"), Bulk("sqdtr74hyu0"), Nil()}));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania"}), Bulk("166274.1516"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "km"}), Bulk("166.2742"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "MI"}), Bulk("103.3182"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "ft"}), Bulk("545518.8700"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "NonExisting"}), Nil());
  EXPECT_EQ(Run({"geopos", "nokey", "a", "b"}), Array({NilArray(), NilArray()}));
  EXPECT_EQ(Run({"geohash", "nokey", "a"}), Array({Nil()}));
  EXPECT_EQ(Run({"geodist", "nokey", "a", "b"}), Nil());
  EXPECT_EQ(Run({"geopos", "Sicily"}), Array({}));
}

TEST_P(GeoFamilyTest, GeoAddOptions) {
  EXPECT_EQ(Run({"geoadd", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(Run({"geoadd", "g", "13.361389", "38.115556", "Palermo"}), Int(0));
  EXPECT_EQ(Run({"geoadd", "g", "ch", "13.361389", "38.115556", "Palermo"}), Int(0));
  EXPECT_EQ(Run({"geoadd", "g", "ch", "13.5", "38.1", "Palermo", "1", "1", "a"}), Int(2));
  EXPECT_EQ(Run({"geoadd", "g", "nx", "2", "2", "a", "3", "3", "b"}), Int(1));
  EXPECT_EQ(Run({"geopos", "g", "a"}),
            Array({Strings({"0.99999994039535522", "0.99999945914297683"})}));
  EXPECT_EQ(Run({"geoadd", "g", "xx", "ch", "4", "4", "a", "5", "5", "c"}), Int(1));
  EXPECT_EQ(Run({"geopos", "g", "a", "c"}),
            Array({Strings({"4.00000244379043579", "3.99999910393250957"}), NilArray()}));
  EXPECT_EQ(Run({"geoadd", "g", "xx", "nx", "1", "1", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geoadd", "g", "NX", "CH", "XX", "1", "1", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geoadd", "g", "1", "1", "d", "2", "2", "d"}), Int(1));
  EXPECT_EQ(Run({"geoadd", "g", "ch", "1", "1", "e", "2", "2", "e"}), Int(2));
  EXPECT_EQ(Run({"geopos", "g", "d", "e"}),
            Array({Strings({"2.00000256299972534", "2.0000001856465488"}),
                   Strings({"2.00000256299972534", "2.0000001856465488"})}));
  EXPECT_EQ(Run({"geoadd", "xxkey", "xx", "1", "1", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "xxkey"}), Int(0));
  EXPECT_EQ(Run({"geoadd", "g", "nx", "1", "1", "nx"}), Int(1));
  EXPECT_EQ(Run({"geopos", "g", "nx"}),
            Array({Strings({"0.99999994039535522", "0.99999945914297683"})}));
  EXPECT_EQ(Run({"zcard", "g"}), Int(7));
}

TEST_P(GeoFamilyTest, GeoAddErrorsChangeNothing) {
  EXPECT_EQ(Run({"geoadd", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(Run({"geoadd", "g", "1", "1", "a", "200", "10", "b"}),
            Err("ERR invalid longitude,latitude pair 200.000000,10.000000"));
  EXPECT_EQ(Run({"geoadd", "g", "10", "86", "b"}),
            Err("ERR invalid longitude,latitude pair 10.000000,86.000000"));
  EXPECT_EQ(Run({"geoadd", "g", "-180.0001", "0", "b"}),
            Err("ERR invalid longitude,latitude pair -180.000100,0.000000"));
  EXPECT_EQ(Run({"geoadd", "g", "1", "-85.05112879", "b"}),
            Err("ERR invalid longitude,latitude pair 1.000000,-85.051129"));
  EXPECT_EQ(Run({"geoadd", "g", "abc", "10", "b"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"geoadd", "g", "1", "nan", "b"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"geoadd", "g", "inf", "1", "b"}),
            Err("ERR invalid longitude,latitude pair inf,1.000000"));
  EXPECT_EQ(Run({"geoadd", "g", "1e400", "1", "b"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"geoadd", "g", "1", "1", "a", "2", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geoadd", "g", "ch", "ch", "ch"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geoadd", "g", "gt", "1", "1", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"geoadd", "g", "gt", "1", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"geoadd", "g", "1", "1"}),
            Err("ERR wrong number of arguments for 'geoadd' command"));
  EXPECT_EQ(Run({"zcard", "g"}), Int(2));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"geoadd", "s", "200", "1", "a"}),
            Err("ERR invalid longitude,latitude pair 200.000000,1.000000"));
  EXPECT_EQ(Run({"geoadd", "s", "1", "1", "a"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"geoadd", "s", "ch", "ch", "ch"}), Err("ERR syntax error"));
}

TEST_P(GeoFamilyTest, GeoEdgesOfTheRanges) {
  EXPECT_EQ(Run({"geoadd", "g", "180", "85.05112878", "top", "-180", "-85.05112878", "bottom", "0",
                 "0", "zero", "180", "0", "east", "-180", "0", "west"}),
            Int(5));
  EXPECT_EQ(Run({"zrange", "g", "0", "-1", "withscores"}),
            Strings({"bottom", "0", "west", "1125899906842624", "zero", "3377699720527872", "east",
                     "10133099161583616", "top", "13510798882111488"}));
  EXPECT_EQ(Run({"geopos", "g", "top", "bottom", "zero", "east", "west"}),
            Array({Strings({"180", "85.0511287799999991"}),
                   Strings({"-179.99999731779098511", "-85.05112751263942528"}),
                   Strings({"0.00000268220901489", "0.00000126736058093"}),
                   Strings({"180", "0.00000126736058093"}),
                   Strings({"-179.99999731779098511", "0.00000126736058093"})}));
  EXPECT_EQ(Run({"geohash", "g", "top", "bottom", "zero", "east", "west"}),
            Strings({"bp05b5048p0", "00bh0hbj200", "s0000000000", "80000000000", "80000000000"}));
  EXPECT_EQ(Run({"geodist", "g", "top", "bottom"}), Bulk("18919844.5891"));
  EXPECT_EQ(Run({"geodist", "g", "east", "west"}), Bulk("0.2983"));
  EXPECT_EQ(Run({"zadd", "g", "-1", "neg", "1e300", "big", "4503599627370496", "p52"}), Int(3));
  EXPECT_EQ(Run({"geopos", "g", "neg", "big", "p52"}),
            Array({Strings({"180", "85.0511287799999991"}),
                   Strings({"-179.99999731779098511", "-85.05112751263942528"}),
                   Strings({"-179.99999731779098511", "85.0511287799999991"})}));
  EXPECT_EQ(Run({"geohash", "g", "neg", "big", "p52"}),
            Strings({"bp05b5048p0", "00bh0hbj200", "bp05b5048p0"}));
  EXPECT_EQ(
      Run({"geosearch", "g", "frommember", "top", "byradius", "1", "m", "withdist", "withhash"}),
      Array({Array({Bulk("top"), Bulk("0.0000"), Int(13510798882111488)})}));
  EXPECT_EQ(Run({"geosearch", "g", "fromlonlat", "180", "85.05112878", "byradius", "1", "m",
                 "withdist", "withhash"}),
            Array({Array({Bulk("top"), Bulk("0.0000"), Int(13510798882111488)})}));
  EXPECT_EQ(Run({"geosearch", "g", "fromlonlat", "0", "0", "byradius", "0", "m", "withdist"}),
            Array({}));
  EXPECT_EQ(Run({"geosearch", "g", "fromlonlat", "179.9", "0", "byradius", "100", "km", "withdist",
                 "asc"}),
            Array({Strings({"west", "11.1229"})}));
}

TEST_P(GeoFamilyTest, GeoDistUnitsAndErrors) {
  EXPECT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "parsec"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(Run({"geodist", "nokey", "a", "b", "parsec"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "km", "extra"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Palermo"}), Bulk("0.0000"));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"geodist", "s", "a", "b"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"geopos", "s", "a"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"geohash", "s", "a"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"geodist", "s", "a", "b", "parsec"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
}

TEST_P(GeoFamilyTest, GeoSearchReplies) {
  EXPECT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(Run({"geoadd", "Sicily", "12.758489", "38.788135", "edge1", "17.241510", "38.788135",
                 "edge2"}),
            Int(2));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km", "asc"}),
            Strings({"Catania", "Palermo"}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km", "desc"}),
            Strings({"Palermo", "Catania"}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km"}),
            Strings({"Palermo", "Catania"}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "400", "400", "km",
                 "asc", "withcoord", "withdist"}),
            Array({Array({Bulk("Catania"), Bulk("56.4413"),
                          Strings({"15.08726745843887329", "37.50266842333162032"})}),
                   Array({Bulk("Palermo"), Bulk("190.4424"),
                          Strings({"13.36138933897018433", "38.11555639549629859"})}),
                   Array({Bulk("edge2"), Bulk("279.7403"),
                          Strings({"17.24151045083999634", "38.78813451624225195"})}),
                   Array({Bulk("edge1"), Bulk("279.7405"),
                          Strings({"12.7584877610206604", "38.78813451624225195"})})}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "400", "400", "km",
                 "asc", "withcoord", "withdist", "withhash"}),
            Array({Array({Bulk("Catania"), Bulk("56.4413"), Int(3479447370796909),
                          Strings({"15.08726745843887329", "37.50266842333162032"})}),
                   Array({Bulk("Palermo"), Bulk("190.4424"), Int(3479099956230698),
                          Strings({"13.36138933897018433", "38.11555639549629859"})}),
                   Array({Bulk("edge2"), Bulk("279.7403"), Int(3481342659049484),
                          Strings({"17.24151045083999634", "38.78813451624225195"})}),
                   Array({Bulk("edge1"), Bulk("279.7405"), Int(3479273021651468),
                          Strings({"12.7584877610206604", "38.78813451624225195"})})}));
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "frommember", "Palermo", "byradius", "200", "km", "withdist"}),
      Array({Strings({"Palermo", "0.0000"}), Strings({"edge1", "91.4007"}),
             Strings({"Catania", "166.2742"})}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "Palermo", "byradius", "200", "km",
                 "withhash", "asc"}),
            Array({Array({Bulk("Palermo"), Int(3479099956230698)}),
                   Array({Bulk("edge1"), Int(3479273021651468)}),
                   Array({Bulk("Catania"), Int(3479447370796909)})}));
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km", "count", "1"}),
      Strings({"Catania"}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km", "count",
                 "1", "desc"}),
            Strings({"Palermo"}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "500", "km", "count",
                 "2", "any"}),
            Strings({"Palermo", "edge1"}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "500", "km", "count",
                 "2", "any", "asc"}),
            Strings({"Palermo", "edge1"}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "500", "km", "count",
                 "9223372036854775807", "withdist"}),
            Array({Strings({"Catania", "56.4413"}), Strings({"Palermo", "190.4424"}),
                   Strings({"edge2", "279.7403"}), Strings({"edge1", "279.7405"})}));
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "124", "mi", "withdist"}),
      Array({Strings({"Palermo", "118.3357"}), Strings({"Catania", "35.0711"})}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "656168", "ft",
                 "withdist"}),
            Array({Strings({"Palermo", "624811.1215"}), Strings({"Catania", "185174.7305"})}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "10", "km"}),
            Array({}));
  EXPECT_EQ(Run({"geosearch", "nokey", "fromlonlat", "15", "37", "byradius", "10", "km"}),
            Array({}));
  EXPECT_EQ(Run({"geosearch", "nokey", "frommember", "x", "byradius", "10", "km"}), Array({}));
  Run({"hello", "3"});
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km", "asc",
           "withcoord", "withdist", "withhash"}),
      Array({Array({Bulk("Catania"), Bulk("56.4413"), Int(3479447370796909),
                    Array({Double("15.08726745843887329"), Double("37.50266842333162032")})}),
             Array({Bulk("Palermo"), Bulk("190.4424"), Int(3479099956230698),
                    Array({Double("13.36138933897018433"), Double("38.11555639549629859")})})}));
  EXPECT_EQ(
      Run({"geopos", "Sicily", "Palermo", "nope"}),
      Array({Array({Double("13.36138933897018433"), Double("38.11555639549629859")}), Nil()}));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania"}), Bulk("166274.1516"));
  EXPECT_EQ(Run({"geohash", "Sicily", "Palermo", "nope"}), Array({Bulk("sqc8b49rny0"), Nil()}));
}

TEST_P(GeoFamilyTest, GeoSearchErrorsInRedisOrder) {
  EXPECT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37"}),
            Err("ERR wrong number of arguments for 'geosearch' command"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "byradius", "10", "km"}),
            Err("ERR wrong number of arguments for 'geosearch' command"));
  EXPECT_EQ(Run({"GeoSearch", "Sicily", "byradius", "10", "km"}),
            Err("ERR wrong number of arguments for 'geosearch' command"));
  EXPECT_EQ(Run({"GeoSearch", "Sicily", "byradius", "10", "km", "asc", "withdist"}),
            Err("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GeoSearch"));
  EXPECT_EQ(Run({"GEOSEARCH", "Sicily", "fromlonlat", "15", "37", "asc", "withdist"}),
            Err("ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH"));
  EXPECT_EQ(Run({"GeoSearchStore", "d", "Sicily", "byradius", "10", "km", "asc", "storedist"}),
            Err("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GeoSearchStore"));
  EXPECT_EQ(Run({"geosearchstore", "d", "Sicily", "fromlonlat", "15", "37", "asc", "count", "1",
                 "storedist"}),
            Err("ERR exactly one of BYRADIUS and BYBOX can be specified for geosearchstore"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "1", "1", "km",
                 "byradius", "1", "km"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "Palermo", "fromlonlat", "15", "37",
                 "byradius", "1", "km"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "frommember", "Palermo",
                 "byradius", "1", "km"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "Palermo", "frommember", "Catania",
                 "byradius", "1", "km", "withdist"}),
            Array({Strings({"Catania", "0.0000"})}));
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "nope", "byradius", "1", "km"}),
            Err("ERR could not decode requested zset member"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "nope", "byradius", "-1", "km"}),
            Err("ERR could not decode requested zset member"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "200", "37", "byradius", "1", "km"}),
            Err("ERR invalid longitude,latitude pair 200.000000,37.000000"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "x", "37", "byradius", "1", "km"}),
            Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "x", "km"}),
            Err("ERR need numeric radius"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "-1", "km"}),
            Err("ERR radius cannot be negative"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "parsec"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "x", "1", "km"}),
            Err("ERR need numeric width"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "1", "x", "km"}),
            Err("ERR need numeric height"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "-1", "1", "km"}),
            Err("ERR height or width cannot be negative"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "1", "1", "parsec"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km", "count", "0"}),
      Err("ERR COUNT must be > 0"));
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km", "count", "-1"}),
      Err("ERR COUNT must be > 0"));
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km", "count", "x"}),
      Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km", "count"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km", "any"}),
            Err("ERR the ANY argument requires COUNT argument"));
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km", "store", "x"}),
      Err("ERR syntax error"));
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km", "storedist"}),
      Err("ERR syntax error"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km", "foo"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"geosearch", "nokey", "fromlonlat", "15", "37", "byradius", "1", "km", "any"}),
            Err("ERR the ANY argument requires COUNT argument"));
  EXPECT_EQ(Run({"geosearch", "nokey", "fromlonlat", "200", "37", "byradius", "1", "km"}),
            Err("ERR invalid longitude,latitude pair 200.000000,37.000000"));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"geosearch", "s", "fromlonlat", "200", "37", "byradius", "1", "km"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST_P(GeoFamilyTest, GeoRadiusForms) {
  EXPECT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "withdist", "withcoord"}),
            Array({Array({Bulk("Palermo"), Bulk("190.4424"),
                          Strings({"13.36138933897018433", "38.11555639549629859"})}),
                   Array({Bulk("Catania"), Bulk("56.4413"),
                          Strings({"15.08726745843887329", "37.50266842333162032"})})}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "withdist", "withcoord",
                 "withhash", "count", "1", "desc"}),
            Array({Array({Bulk("Palermo"), Bulk("190.4424"), Int(3479099956230698),
                          Strings({"13.36138933897018433", "38.11555639549629859"})})}));
  EXPECT_EQ(Run({"georadius_ro", "Sicily", "15", "37", "200", "km", "asc"}),
            Strings({"Catania", "Palermo"}));
  EXPECT_EQ(Run({"georadiusbymember", "Sicily", "Palermo", "200", "km", "withdist"}),
            Array({Strings({"Palermo", "0.0000"}), Strings({"Catania", "166.2742"})}));
  EXPECT_EQ(Run({"georadiusbymember_ro", "Sicily", "Palermo", "200", "km", "withdist", "desc"}),
            Array({Strings({"Catania", "166.2742"}), Strings({"Palermo", "0.0000"})}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "any"}),
            Err("ERR the ANY argument requires COUNT argument"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "store"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "store", "d", "withdist"}),
            Err("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and "
                "WITHCOORD options"));
  EXPECT_EQ(Run({"georadius_ro", "Sicily", "15", "37", "200", "km", "store", "d"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"georadius_ro", "Sicily", "15", "37", "200", "km", "storedist", "d"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"georadius", "Sicily", "200", "37", "200", "km"}),
            Err("ERR invalid longitude,latitude pair 200.000000,37.000000"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "x", "km"}), Err("ERR need numeric radius"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "parsec"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "frommember", "Palermo"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"georadiusbymember", "Sicily", "nope", "200", "km"}),
            Err("ERR could not decode requested zset member"));
  EXPECT_EQ(Run({"georadiusbymember", "Sicily", "Palermo", "x", "km"}),
            Err("ERR need numeric radius"));
  EXPECT_EQ(Run({"georadiusbymember", "nokey", "nope", "x", "parsec", "withdist"}), Array({}));
  EXPECT_EQ(Run({"georadiusbymember", "nokey", "nope", "x", "parsec", "store", "d"}), Int(0));
  EXPECT_EQ(Run({"georadiusbymember", "nokey", "nope", "x", "parsec", "foo"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"georadius", "nokey", "15", "37", "200", "km"}), Array({}));
  EXPECT_EQ(Run({"georadius", "nokey", "15", "37", "x", "km"}), Err("ERR need numeric radius"));
}

TEST_P(GeoFamilyTest, StoreForms) {
  EXPECT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "store", "d1"}), Int(2));
  EXPECT_EQ(Run({"zrange", "d1", "0", "-1", "withscores"}),
            Strings({"Palermo", "3479099956230698", "Catania", "3479447370796909"}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "storedist", "d2"}), Int(2));
  EXPECT_EQ(Run({"zrange", "d2", "0", "-1", "withscores"}),
            Strings({"Catania", "56.441257870158204", "Palermo", "190.44242984775784"}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "store", "x", "storedist", "d3",
                 "asc", "count", "1"}),
            Int(1));
  EXPECT_EQ(Run({"zrange", "d3", "0", "-1", "withscores"}),
            Strings({"Catania", "56.441257870158204"}));
  EXPECT_EQ(Run({"exists", "x"}), Int(0));
  EXPECT_EQ(Run({"georadiusbymember", "Sicily", "Palermo", "200", "km", "storedist", "d4", "desc"}),
            Int(2));
  EXPECT_EQ(Run({"zrange", "d4", "0", "-1", "withscores"}),
            Strings({"Palermo", "0", "Catania", "166.27415156960032"}));
  EXPECT_EQ(
      Run({"geosearchstore", "d5", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km"}),
      Int(2));
  EXPECT_EQ(Run({"zrange", "d5", "0", "-1", "withscores"}),
            Strings({"Palermo", "3479099956230698", "Catania", "3479447370796909"}));
  EXPECT_EQ(Run({"geosearchstore", "d5", "Sicily", "fromlonlat", "15", "37", "byradius", "200",
                 "km", "storedist", "count", "1", "desc"}),
            Int(1));
  EXPECT_EQ(Run({"zrange", "d5", "0", "-1", "withscores"}),
            Strings({"Palermo", "190.44242984775784"}));
  EXPECT_EQ(Run({"geosearchstore", "d5", "Sicily", "fromlonlat", "15", "37", "byradius", "200",
                 "mi", "storedist"}),
            Int(2));
  EXPECT_EQ(Run({"zrange", "d5", "0", "-1", "withscores"}),
            Strings({"Catania", "35.071058862737644", "Palermo", "118.33573380874013"}));
  EXPECT_EQ(Run({"object", "encoding", "d5"}), Bulk(Encoding()));
  EXPECT_EQ(
      Run({"geosearchstore", "d5", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km"}),
      Int(0));
  EXPECT_EQ(Run({"exists", "d5"}), Int(0));
  EXPECT_EQ(Run({"set", "d6", "x"}), Ok());
  EXPECT_EQ(Run({"expire", "d6", "1000"}), Int(1));
  EXPECT_EQ(
      Run({"geosearchstore", "d6", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km"}),
      Int(2));
  EXPECT_EQ(Run({"ttl", "d6"}), Int(-1));
  EXPECT_EQ(Run({"type", "d6"}), Status("zset"));
  EXPECT_EQ(
      Run({"geosearchstore", "d6", "nokey", "fromlonlat", "15", "37", "byradius", "200", "km"}),
      Int(0));
  EXPECT_EQ(Run({"exists", "d6"}), Int(0));
  EXPECT_EQ(Run({"georadius", "nokey", "15", "37", "200", "km", "store", "d1"}), Int(0));
  EXPECT_EQ(Run({"exists", "d1"}), Int(0));
  EXPECT_EQ(
      Run({"geosearchstore", "Sicily", "Sicily", "frommember", "Palermo", "byradius", "10", "km"}),
      Int(1));
  EXPECT_EQ(Run({"zrange", "Sicily", "0", "-1", "withscores"}),
            Strings({"Palermo", "3479099956230698"}));
  EXPECT_EQ(
      Run({"geosearchstore", "d7", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km",
           "withdist"}),
      Err("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"geosearchstore", "d7", "s", "fromlonlat", "15", "37", "byradius", "200", "km"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"georadius", "s", "15", "37", "200", "km", "store", "d7"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"exists", "d7"}), Int(0));
}

TEST_P(GeoFamilyTest, TiesInRedisOrder) {
  EXPECT_EQ(Run({"geoadd", "t", "10",   "10", "a", "10",   "10", "b", "10",  "10", "c", "10",
                 "10",     "d", "10",   "10", "e", "10",   "10", "f", "10",  "10", "g", "10",
                 "10",     "h", "10.1", "10", "i", "10.1", "10", "j", "9.9", "10", "k"}),
            Int(11));
  EXPECT_EQ(Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km"}),
            Strings({"k", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}));
  EXPECT_EQ(Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "asc"}),
            Strings({"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}));
  EXPECT_EQ(Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "desc"}),
            Strings({"k", "i", "j", "a", "b", "c", "d", "e", "f", "g", "h"}));
  EXPECT_EQ(
      Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "count", "3"}),
      Strings({"g", "a", "b"}));
  EXPECT_EQ(
      Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "count", "9"}),
      Strings({"g", "a", "b", "c", "d", "e", "f", "h", "j"}));
  EXPECT_EQ(
      Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "count", "10"}),
      Strings({"g", "a", "b", "c", "d", "e", "f", "h", "j", "i"}));
  EXPECT_EQ(
      Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "count", "11"}),
      Strings({"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}));
  EXPECT_EQ(Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "count", "3",
                 "desc"}),
            Strings({"k", "j", "i"}));
  EXPECT_EQ(Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "count", "10",
                 "desc"}),
            Strings({"k", "j", "i", "b", "d", "e", "f", "g", "h", "a"}));
  EXPECT_EQ(Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "count", "4",
                 "any"}),
            Strings({"k", "a", "b", "c"}));
  EXPECT_EQ(Run({"geosearch", "t", "fromlonlat", "10", "10", "byradius", "100", "km", "count", "4",
                 "any", "desc"}),
            Strings({"k", "a", "b", "c"}));
  EXPECT_EQ(Run({"geosearchstore", "d", "t", "fromlonlat", "10", "10", "byradius", "100", "km",
                 "count", "3"}),
            Int(3));
  EXPECT_EQ(Run({"zrange", "d", "0", "-1"}), Strings({"a", "b", "g"}));
}

TEST_P(GeoFamilyTest, CommandInfoAndKeys) {
  EXPECT_EQ(Run({"command", "getkeys", "georadius", "k", "1", "2", "3", "km"}), Strings({"k"}));
  EXPECT_EQ(Run({"command", "getkeys", "georadius", "k", "1", "2", "3", "km", "store", "d"}),
            Strings({"k", "d"}));
  EXPECT_EQ(Run({"command", "getkeys", "georadius", "k", "1", "2", "3", "km", "store", "d",
                 "storedist", "e"}),
            Strings({"k", "d", "e"}));
  EXPECT_EQ(Run({"command", "getkeys", "georadius", "k", "1", "2", "3", "km", "storedist", "d",
                 "store", "e"}),
            Strings({"k", "e", "d"}));
  EXPECT_EQ(Run({"command", "getkeys", "georadius", "k", "1", "2", "3", "km", "count", "store"}),
            Strings({"k"}));
  EXPECT_EQ(Run({"command", "getkeys", "georadius", "k", "1", "2", "3", "store", "d"}),
            Strings({"k"}));
  EXPECT_EQ(
      Run({"command", "getkeys", "georadius", "k", "1", "2", "3", "km", "store", "store", "store"}),
      Strings({"k", "store"}));
  EXPECT_EQ(Run({"command", "getkeys", "georadiusbymember", "k", "m", "3", "km", "storedist", "d"}),
            Strings({"k", "d"}));
  EXPECT_EQ(Run({"command", "getkeys", "georadiusbymember", "k", "m", "3", "store", "d"}),
            Strings({"k"}));
  EXPECT_EQ(Run({"command", "getkeys", "geosearchstore", "d", "s", "fromlonlat", "1", "2",
                 "byradius", "3", "km"}),
            Strings({"d", "s"}));
  EXPECT_EQ(
      Run({"command", "getkeys", "geosearch", "s", "fromlonlat", "1", "2", "byradius", "3", "km"}),
      Strings({"s"}));
}

TEST_P(GeoFamilyTest, CoordinatesInResp3AreDoubles) {
  Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo"});
  Run({"hello", "3"});
  EXPECT_EQ(RunRaw({"geopos", "Sicily", "Palermo", "nope"}),
            "*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n_\r\n");
  EXPECT_EQ(RunRaw({"geodist", "Sicily", "Palermo", "Palermo", "km"}), "$6\r\n0.0000\r\n");
  Run({"hello", "2"});
  EXPECT_EQ(RunRaw({"geopos", "Sicily", "Palermo", "nope"}),
            "*2\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*-1\r\n");
}

TEST_P(GeoFamilyTest, KeyspaceEventsAsRedis) {
  TestClient& sub = NewClient();
  sub.RunAll({"psubscribe", "__keyevent@0__:*"});
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KEA"}), Ok());
  auto events = [&] { return TakeKeyEvents(sub); };
  using Events = std::vector<std::string>;
  EXPECT_EQ(Run({"geoadd", "g", "13.361389", "38.115556", "Palermo"}), Int(1));
  EXPECT_EQ(Run({"geoadd", "g", "13.361389", "38.115556", "Palermo"}), Int(0));  // no change
  EXPECT_EQ(Run({"geoadd", "g", "xx", "1", "1", "Palermo"}), Int(0));
  EXPECT_EQ(Run({"geoadd", "h", "xx", "1", "1", "Palermo"}), Int(0));
  EXPECT_EQ(Run({"geoadd", "g", "200", "1", "x"}).type, Reply::Type::kError);
  EXPECT_EQ(events(), (Events{"zadd g", "zadd g"}));
  EXPECT_EQ(Run({"georadius", "g", "1", "1", "10", "km", "store", "d1"}), Int(1));
  EXPECT_EQ(Run({"georadiusbymember", "g", "Palermo", "10", "km", "storedist", "d2"}), Int(1));
  EXPECT_EQ(Run({"geosearchstore", "d3", "g", "frommember", "Palermo", "byradius", "1", "m"}),
            Int(1));
  EXPECT_EQ(events(), (Events{"georadiusstore d1", "georadiusstore d2", "geosearchstore d3"}));
  // An empty result deletes the destination ("del"), or does nothing if there is none.
  EXPECT_EQ(Run({"geosearchstore", "d3", "g", "fromlonlat", "50", "50", "byradius", "1", "m"}),
            Int(0));
  EXPECT_EQ(Run({"georadius", "nokey", "1", "1", "10", "km", "store", "d1"}), Int(0));
  EXPECT_EQ(Run({"georadius", "nokey", "1", "1", "10", "km", "store", "d1"}), Int(0));
  EXPECT_EQ(Run({"georadius_ro", "g", "1", "1", "10", "km"}), Strings({"Palermo"}));
  EXPECT_EQ(events(), (Events{"del d3", "del d1"}));
}

TEST_P(GeoFamilyTest, WritesSignalWatchers) {
  Run({"geoadd", "g", "13.361389", "38.115556", "Palermo"});
  EXPECT_EQ(WatchedExec("g", {"geoadd", "g", "1", "1", "x"}), NilArray());
  EXPECT_EQ(WatchedExec("g", {"geoadd", "g", "1", "1", "x"}), Array({Status("PONG")}));
  EXPECT_EQ(WatchedExec(
                "d", {"geosearchstore", "d", "g", "fromlonlat", "1", "1", "byradius", "10", "km"}),
            NilArray());
  EXPECT_EQ(WatchedExec("g", {"georadius", "g", "1", "1", "10", "km", "store", "d"}),
            Array({Status("PONG")}));
}

// COMMAND INFO's fields before the key specs, as redis-server 7.0.15 gives them.
TEST_P(GeoFamilyTest, CommandInfoAsRedis) {
  struct Expected {
    std::string name;
    int arity;
    std::vector<std::string> flags;
    int first, last;
    std::string access;
  };
  const std::vector<Expected> commands = {
      {"geoadd", -5, {"write", "denyoom"}, 1, 1, "@write"},
      {"geodist", -4, {"readonly"}, 1, 1, "@read"},
      {"geohash", -2, {"readonly"}, 1, 1, "@read"},
      {"geopos", -2, {"readonly"}, 1, 1, "@read"},
      {"geosearch", -7, {"readonly"}, 1, 1, "@read"},
      {"geosearchstore", -8, {"write", "denyoom"}, 1, 2, "@write"},
      {"georadius", -6, {"write", "denyoom", "movablekeys"}, 1, 1, "@write"},
      {"georadiusbymember", -5, {"write", "denyoom", "movablekeys"}, 1, 1, "@write"},
      {"georadius_ro", -6, {"readonly"}, 1, 1, "@read"},
      {"georadiusbymember_ro", -5, {"readonly"}, 1, 1, "@read"},
  };
  for (const Expected& e : commands) {
    const Reply reply = Run({"command", "info", e.name});
    ASSERT_EQ(reply.elements.size(), 1u) << e.name;
    const std::vector<Reply>& info = reply.elements[0].elements;
    ASSERT_GE(info.size(), 7u) << e.name;
    std::vector<Reply> flags;
    for (const std::string& f : e.flags) flags.push_back(Status(f));
    EXPECT_EQ(info[0], Bulk(e.name));
    EXPECT_EQ(info[1], Int(e.arity)) << e.name;
    EXPECT_EQ(info[2], Array(flags)) << e.name;
    EXPECT_EQ(info[3], Int(e.first)) << e.name;
    EXPECT_EQ(info[4], Int(e.last)) << e.name;
    EXPECT_EQ(info[5], Int(1)) << e.name;
    EXPECT_EQ(info[6], Array({Status(e.access), Status("@geo"), Status("@slow")})) << e.name;
  }
  EXPECT_EQ(Run({"command", "docs", "geoadd"}).elements[1].elements[5], Bulk("geo"));
}

// Key permissions as Redis's ACL gives them: the source needs read access, a STORE destination
// write access. One difference: Redis's key specs find the first STORE only, so it lets a repeated
// STORE write a key the user may not touch; ordis checks that key too.
TEST_P(GeoFamilyTest, AclKeyAccess) {
  EXPECT_EQ(Run({"acl", "setuser", "u", "on", "nopass", "+@all", "%R~src*", "%W~dst1", "~other"}),
            Ok());
  EXPECT_EQ(Run({"geoadd", "src", "1", "1", "a"}), Int(1));
  TestClient& u = NewClient();
  EXPECT_EQ(u.Run({"auth", "u", "x"}), Ok());
  const Reply noperm =
      Err("NOPERM this user has no permissions to access one of the keys used as arguments");
  EXPECT_EQ(u.Run({"georadius", "src", "1", "1", "1", "km"}), Strings({"a"}));
  EXPECT_EQ(u.Run({"georadius", "src", "1", "1", "1", "km", "store", "dst1"}), Int(1));
  EXPECT_EQ(u.Run({"georadius", "src", "1", "1", "1", "km", "store", "dst2"}), noperm);
  EXPECT_EQ(u.Run({"geosearchstore", "dst1", "src", "fromlonlat", "1", "1", "byradius", "1", "km"}),
            Int(1));
  EXPECT_EQ(u.Run({"geosearchstore", "dst2", "src", "fromlonlat", "1", "1", "byradius", "1", "km"}),
            noperm);
  EXPECT_EQ(u.Run({"geoadd", "src", "1", "1", "b"}), noperm);
  EXPECT_EQ(u.Run({"geoadd", "dst1", "1", "1", "b"}), Int(1));  // GEOADD writes without reading
  EXPECT_EQ(u.Run({"geopos", "dst1", "b"}), noperm);
  EXPECT_EQ(u.Run({"georadius_ro", "dst1", "1", "1", "1", "km"}), noperm);
  // Redis replies 1 and writes dst2.
  EXPECT_EQ(u.Run({"georadius", "src", "1", "1", "1", "km", "store", "dst1", "store", "dst2"}),
            noperm);
  EXPECT_EQ(Run({"exists", "dst2"}), Int(0));
  // COMMAND GETKEYS stays Redis's.
  EXPECT_EQ(Run({"command", "getkeys", "georadius", "k", "1", "2", "3", "km", "store", "d", "store",
                 "e"}),
            Strings({"k", "d"}));
}

// Every search against a scan of the whole set: a random set of points (distinct positions, so
// the order by distance is unique), random centres, radii and boxes, every option.
TEST_P(GeoFamilyTest, SearchFindsWhatAScanFinds) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<std::string> add = {"geoadd", "g"};
  const int n = GetParam() == Form::kListpack ? 120 : 3000;
  std::vector<std::pair<std::string, geo::Point>> points;
  for (int i = 0; i < n; ++i) {
    const geo::Point p{10 + unit(rng) * 10, 30 + unit(rng) * 10};
    char lon[32], lat[32];
    snprintf(lon, sizeof lon, "%.9f", p.lon);
    snprintf(lat, sizeof lat, "%.9f", p.lat);
    add.insert(add.end(), {lon, lat, "m" + std::to_string(i)});
    points.emplace_back("m" + std::to_string(i),
                        geo::Point{std::strtod(lon, nullptr), std::strtod(lat, nullptr)});
  }
  EXPECT_EQ(Run(add), Int(n));
  EXPECT_EQ(Run({"object", "encoding", "g"}), Bulk(Encoding()));
  for (int q = 0; q < 200; ++q) {
    geo::Shape shape;
    shape.center = {10 + unit(rng) * 10, 30 + unit(rng) * 10};
    shape.conversion = 1000;
    shape.kind = q % 2 == 0 ? geo::Shape::Kind::kRadius : geo::Shape::Kind::kBox;
    shape.radius = unit(rng) * 300;
    shape.width = unit(rng) * 600;
    shape.height = unit(rng) * 600;
    const geo::ShapeTest test(shape);
    std::vector<std::pair<double, std::string>> expected;
    for (const auto& [name, at] : points) {
      const geo::Point p = geo::DecodeScore(static_cast<double>(geo::ScoreBits(at)));
      double d;
      if (test.Contains(p, &d)) expected.emplace_back(d, name);
    }
    std::sort(expected.begin(), expected.end());
    char lon[32], lat[32], r[32], w[32], h[32];
    snprintf(lon, sizeof lon, "%.17g", shape.center.lon);
    snprintf(lat, sizeof lat, "%.17g", shape.center.lat);
    snprintf(r, sizeof r, "%.17g", shape.radius);
    snprintf(w, sizeof w, "%.17g", shape.width);
    snprintf(h, sizeof h, "%.17g", shape.height);
    std::vector<std::string> cmd = {"geosearch", "g", "fromlonlat", lon, lat};
    if (shape.kind == geo::Shape::Kind::kRadius) {
      cmd.insert(cmd.end(), {"byradius", r, "km"});
    } else {
      cmd.insert(cmd.end(), {"bybox", w, h, "km"});
    }
    std::vector<std::string> names;
    for (const auto& e : expected) names.push_back(e.second);
    std::vector<std::string> asc = cmd;
    asc.push_back("asc");
    EXPECT_EQ(Run(asc), Strings(names)) << q;
    std::vector<std::string> unsorted = Run(cmd).Strings();
    std::sort(unsorted.begin(), unsorted.end());
    std::vector<std::string> sorted_names = names;
    std::sort(sorted_names.begin(), sorted_names.end());
    EXPECT_EQ(unsorted, sorted_names) << q;
    const size_t k = 1 + q % 7;
    std::vector<std::string> count = cmd;
    count.insert(count.end(), {"count", std::to_string(k)});
    std::vector<std::string> nearest(names.begin(), names.begin() + std::min(k, names.size()));
    EXPECT_EQ(Run(count), Strings(nearest)) << q;
    count.push_back("desc");
    std::vector<std::string> farthest(names.rbegin(), names.rbegin() + std::min(k, names.size()));
    EXPECT_EQ(Run(count), Strings(farthest)) << q;
  }
}

}  // namespace
}  // namespace ordis::server::test
