#include "server/commands/object_info.h"

#include "server/rdb/rdb_value.h"

namespace ordis::server {

std::string_view EncodingName(const Object& obj, const Config& config) {
  switch (obj.type()) {
    case ObjType::kString:
      switch (obj.encoding()) {
        case ObjEncoding::kInt:
          return "int";
        case ObjEncoding::kEmbStr:
          return "embstr";
        default:
          return "raw";
      }
    case ObjType::kList:
      return "quicklist";
    case ObjType::kSet:
      return SetFitsIntset(std::get<SetValue>(obj.collection()), RdbLimits::FromConfig(config))
                 ? "intset"
                 : "hashtable";
    case ObjType::kHash:
      return HashFitsListpack(std::get<HashValue>(obj.collection()), RdbLimits::FromConfig(config))
                 ? "listpack"
                 : "hashtable";
    case ObjType::kZSet:
      return std::get<ZSetValue>(obj.collection()).is_small() ? "listpack" : "skiplist";
    case ObjType::kStream:
      return "stream";
  }
  return "raw";
}

int RedisTypeCode(ObjType type) {
  switch (type) {
    case ObjType::kString:
      return 0;
    case ObjType::kList:
      return 1;
    case ObjType::kSet:
      return 2;
    case ObjType::kZSet:
      return 3;
    case ObjType::kHash:
      return 4;
    case ObjType::kStream:
      return 6;
  }
  return 0;
}

}  // namespace ordis::server
