#include "server/commands/families.h"

namespace ordis::server {

const CommandTable& AllCommands() {
  static const CommandTable* table = [] {
    auto* t = new CommandTable;
    RegisterConnectionFamily(t);
    RegisterAclFamily(t);
    RegisterServerFamily(t);
    RegisterMemoryFamily(t);
    RegisterInfo(t);
    RegisterCommandDocs(t);
    RegisterStringFamily(t);
    RegisterKeysFamily(t);
    RegisterExpireFamily(t);
    RegisterTransactionFamily(t);
    RegisterRangeFamily(t);
    RegisterListFamily(t);
    RegisterHashFamily(t);
    RegisterSetFamily(t);
    RegisterZSetFamily(t);
    RegisterZSetRangeFamily(t);
    RegisterZSetAlgebraFamily(t);
    RegisterStreamFamily(t);
    RegisterStreamGroupFamily(t);
    RegisterPersistenceFamily(t);
    RegisterScriptingFamily(t);
    RegisterPubSubFamily(t);
    RegisterDumpFamily(t);
    RegisterSlowlogFamily(t);
    RegisterLatencyFamily(t);
    RegisterBitmapFamily(t);
    RegisterHyperLogLogFamily(t);
    RegisterGeoFamily(t);
    RegisterSortFamily(t);
    RegisterDebugFamily(t);
    t->Freeze();
    return t;
  }();
  return *table;
}

}  // namespace ordis::server
