#include "server/keyspace/object.h"

namespace ordis::server {

bool Object::EmptyCollection() const {
  if (!coll) return false;
  return std::visit([](const auto& v) { return v.empty(); }, *coll);
}

std::unique_ptr<Object> NewObject(ObjType t) {
  auto obj = std::make_unique<Object>();
  obj->type = t;
  switch (t) {
    case ObjType::kString:
      break;
    case ObjType::kList:
      obj->coll = std::make_unique<Collection>(std::in_place_type<ListValue>);
      break;
    case ObjType::kSet:
      obj->coll = std::make_unique<Collection>(std::in_place_type<SetValue>);
      break;
    case ObjType::kZSet:
      obj->coll = std::make_unique<Collection>(std::in_place_type<ZSetValue>);
      break;
    case ObjType::kHash:
      obj->coll = std::make_unique<Collection>(std::in_place_type<HashValue>);
      break;
  }
  return obj;
}

std::unique_ptr<Object> CloneObject(const Object& obj) {
  auto copy = std::make_unique<Object>();
  copy->type = obj.type;
  copy->str = obj.str;
  copy->raw_encoding = obj.raw_encoding;
  copy->expire_at_ms = obj.expire_at_ms;
  if (obj.coll) copy->coll = std::make_unique<Collection>(*obj.coll);
  return copy;
}

std::string_view TypeName(ObjType t) {
  switch (t) {
    case ObjType::kString:
      return "string";
    case ObjType::kList:
      return "list";
    case ObjType::kSet:
      return "set";
    case ObjType::kZSet:
      return "zset";
    case ObjType::kHash:
      return "hash";
  }
  return "none";
}

}  // namespace ordis::server
