// The engine commands' one path through the CLI (engine_command.h).
#include "engine_command.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "memfit/untrusted_text.h"

namespace memfit::cli {
namespace {

Status write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Error(fmt::format("writing {}: {}", quote_untrusted(path), std::strerror(errno)));
  size_t written = std::fwrite(text.data(), 1, text.size(), f);
  int write_errno = errno;
  bool closed = std::fclose(f) == 0;
  if (written != text.size() || !closed) {
    return Error(fmt::format("writing {}: {}", quote_untrusted(path),
                             std::strerror(closed ? write_errno : errno)));
  }
  return Status::Ok();
}

bool forced(const nlohmann::json& options) {
  auto force = options.find("force");
  return force != options.end() && force->is_boolean() && force->get<bool>();
}

// The engine's answer, or the error to print and whether it takes the
// command's prefix (the registry's refusal does not).
Result<CommandAnswer> ask_engine(const EstimateOptions& flags, const EngineCommandCall& call,
                                 bool& prefixed) {
  prefixed = true;
  LocalRequestContext context = request_context(flags);
  Result<PreparedRequest> prepared = prepare(call.request, context, call.prepare);
  if (!prepared) return prepared.error();
  if (call.check) {
    if (Status checked = call.check(*prepared); !checked) return checked.error();
  }
  const EngineProfile& engine = *prepared->engine;
  if (!engine.supports(call.command)) {
    prefixed = false;
    return EngineRegistry::instance().unsupported(engine, call.command);
  }
  const CommandQuery query{
      .front = CommandFront::kCli, .request = call.request, .options = call.options};
  return engine.answer(call.command, query, std::move(*prepared));
}

}  // namespace

std::optional<EngineCommandCall> command_call(EngineCommand command, const EstimateOptions& flags,
                                              std::string_view prefix, int& exit_code) {
  Result<EstimateRequest> request = to_request(flags);
  if (!request) {
    exit_code = report_error(request.error(), prefix);
    return std::nullopt;
  }
  EngineCommandCall call;
  call.command = command;
  call.request = std::move(*request);
  call.prefix = prefix;
  return call;
}

int run_engine_command(const EstimateOptions& flags, EngineCommandCall call) {
  bool prefixed = true;
  Result<CommandAnswer> answer = ask_engine(flags, call, prefixed);
  if (!answer) return report_error(answer.error(), prefixed ? call.prefix : "");
  print_warnings(answer->warnings);
  if (!call.out_path.empty()) {
    if (Status written = write_file(call.out_path, answer->file); !written) {
      return report_error(written.error(), call.prefix);
    }
  }
  const std::string out =
      flags.json ? answer->json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
                 : answer->text;
  std::fwrite(out.data(), 1, out.size(), stdout);
  return answer->fits || forced(call.options) ? kExitOk : kExitDoesNotFit;
}

}  // namespace memfit::cli
