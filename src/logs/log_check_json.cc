// The check's JSON (schema/check-log.schema.json) and the JSON request of
// POST /v1/check-log and memfit_check_log_json (log_check.h).
#include <fmt/format.h>

#include "memfit/log_check.h"
#include "memfit/memory_size.h"
#include "request/json_fields.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json or_null(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

Json devices_json(const RuntimeLog& log) {
  Json devices = Json::array();
  for (const LogDevice& d : log.devices) {
    devices.push_back({{"id", d.id}, {"name", text_or_null(d.name)},
                       {"free_bytes", or_null(d.free_bytes)}, {"total_bytes", or_null(d.total_bytes)}});
  }
  return devices;
}

Json target_json(const FigureTarget& t) {
  Json j = {{"name", t.name}, {"text", t.text}, {"exact", t.exact}};
  if (!t.exact) {
    j["low"] = t.low;
    j["high"] = t.high;
  }
  j["met"] = t.met;
  return j;
}

Json figure_json(const FigureCheck& c) {
  const PrintedFigure& p = c.printed;
  const bool ratio = p.unit == LogUnit::kRatio;
  Json j = {{"device", p.device},
            {"figure", std::string(to_string(p.figure))},
            {"unit", std::string(to_string(p.unit))},
            {"printed", ratio ? Json(p.ratio) : Json(p.value)},
            {"printed_text", p.text},
            {"band", p.band},
            {"memfit", ratio ? or_null(c.memfit_ratio) : or_null(c.memfit)},
            {"ratio", or_null(c.ratio)},
            {"basis", c.basis ? Json(std::string(to_string(*c.basis))) : Json(nullptr)},
            {"within_print", c.within_print},
            {"note", text_or_null(c.note)},
            {"input_gap", text_or_null(c.input_gap)},
            {"line", p.line}};
  if (!p.buffers.empty()) j["buffers"] = p.buffers;
  j["target"] = c.target ? target_json(*c.target) : Json(nullptr);
  return j;
}

}  // namespace

nlohmann::ordered_json log_check_to_json(const LogCheck& check) {
  const RuntimeLog& log = check.log;
  Json settings = Json::object();
  for (const LogSetting& s : log.settings) settings[s.name] = s.value;
  Json figures = Json::array();
  for (const FigureCheck& c : check.figures) figures.push_back(figure_json(c));
  Json warnings = Json::array();
  for (const Warning& w : check.warnings) warnings.push_back(w.text);
  return Json{{"engine", log.runtime},
              {"version", text_or_null(log.version)},
              {"backend", text_or_null(log.backend)},
              {"devices", devices_json(log)},
              {"settings", std::move(settings)},
              {"model", text_or_null(log.model.name)},
              {"model_source", std::string(to_string(check.model_source))},
              {"model_detail", text_or_null(check.model_detail)},
              {"profile", text_or_null(check.profile)},
              {"not_priced", text_or_null(check.not_priced)},
              {"figures", std::move(figures)},
              {"notes", log.notes},
              {"warnings", std::move(warnings)}};
}

Result<LogCheckRequest> parse_log_check_request_json(std::string_view body) {
  Result<request::Json> json = request::parse_object(body);
  if (!json) return json.error();
  request::Fields fields(*json);
  LogCheckRequest r;
  Result<std::optional<std::string>> log = fields.string("log");
  if (!log) return log.error();
  if (!*log) return Error::usage("log", "required");
  r.log = std::move(**log);
  Result<std::optional<std::string>> model = fields.string("model");
  if (!model) return model.error();
  r.options.model = model->value_or("");
  if (const request::Json* config = fields.find("config")) {
    if (!config->is_object() && !config->is_string()) {
      return request::expected("config", "a config.json object or its text", *config);
    }
    r.options.config_json = config->is_string() ? config->get<std::string>() : config->dump();
  }
  if (const request::Json* total = fields.find("gpu_memory_total")) {
    if (total->is_number_unsigned()) {
      r.options.gpu_memory_total = total->get<uint64_t>();
    } else if (total->is_string()) {
      Result<std::optional<uint64_t>> size = parse_memory_size(total->get<std::string>());
      if (!size) return Error::usage("gpu_memory_total", size.error().message());
      r.options.gpu_memory_total = *size;
    } else {
      return request::expected("gpu_memory_total", "a size (\"80GiB\") or bytes", *total);
    }
  }
  Result<std::optional<std::string>> name = fields.string("gpu_name");
  if (!name) return name.error();
  r.options.gpu_name = name->value_or("");
  Result<std::optional<std::string>> version = fields.string("version");
  if (!version) return version.error();
  r.options.version = version->value_or("");
  Result<std::optional<std::string>> command = fields.string("command");
  if (!command) return command.error();
  r.options.command = command->value_or("");
  Result<std::optional<std::string>> file_type = fields.string("file_type");
  if (!file_type) return file_type.error();
  r.options.file_type = file_type->value_or("");
  if (Status rest = fields.no_others(); !rest) return rest.error();
  return r;
}

}  // namespace memfit
