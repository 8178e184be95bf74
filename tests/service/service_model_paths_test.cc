// Naming models: only what lies inside a model root, by name or absolute
// path; "..", absolute paths elsewhere and symlinks leading out are
// refused, and so is a file a model folder reaches through a symlink.
// Also GET /v1/models, which lists what may be named.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "service/service_fixture.h"
#include "support/corpus.h"
#include "support/safetensors_writer.h"
#include "support/gguf_writer.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::body_json;
using testing::error_code;
using testing::error_message;
using testing::kExampleModel;
using testing::kExamplesRoot;
using testing::kQwen3Root;
using testing::make_service;

HttpResponse estimate_model(Service& service, const std::string& model) {
  return service.handle("POST", "/v1/estimate", json{{"model", model}}.dump());
}

std::string qwen3_8b_config() {
  return testing::read_test_data("corpus/qwen3/Qwen3-8B/config.json");
}

// A root holding one good model, and a folder outside every root.
struct Roots {
  TempDir root;
  TempDir outside;
  Roots() {
    root.write_file("good/config.json", qwen3_8b_config());
    outside.write_file("secret/config.json", qwen3_8b_config());
  }
};

TEST(ServiceModelPaths, DotDotIsRefusedBeforeLookingAnythingUp) {
  auto service = make_service({kExamplesRoot});
  for (const std::string name : {"..", "../examples/Qwen3-14B-MLX-4bit", "Qwen3-14B-MLX-4bit/..",
                                 "Qwen3-14B-MLX-4bit/../Qwen3-14B-MLX-4bit", "a/../../etc"}) {
    HttpResponse r = estimate_model(*service, name);
    EXPECT_EQ(r.status, 400) << name;
    EXPECT_EQ(error_code(r), "invalid_model_path") << name;
    EXPECT_EQ(error_message(r), "model '" + name + "': '..' is not allowed");
  }
  // Even an absolute path whose ".." would land back inside.
  HttpResponse r = estimate_model(*service, kExamplesRoot + "/../examples/" + kExampleModel);
  EXPECT_EQ(error_code(r), "invalid_model_path");
}

TEST(ServiceModelPaths, EmptyAndControlCharacterNames) {
  auto service = make_service({kExamplesRoot});
  HttpResponse r = estimate_model(*service, "");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_message(r), "model '': the name is empty");
  r = estimate_model(*service, std::string("Qwen3\n"));
  EXPECT_EQ(error_code(r), "invalid_model_path");
  EXPECT_EQ(error_code(estimate_model(*service, std::string(5000, 'a'))), "invalid_model_path");
}

TEST(ServiceModelPaths, AbsolutePathOutsideTheRootsIsForbidden) {
  Roots t;
  auto service = make_service({t.root.path()});
  for (const std::string& name : {std::string("/etc"), std::string("/"),
                                  t.outside.path() + "/secret", t.root.path() + "-sibling/x"}) {
    HttpResponse r = estimate_model(*service, name);
    EXPECT_EQ(r.status, 403) << name;
    EXPECT_EQ(error_code(r), "model_outside_roots");
    EXPECT_EQ(error_message(r), "model '" + name + "': not inside a model root");
  }
}

TEST(ServiceModelPaths, AbsolutePathInsideARootIsServed) {
  Roots t;
  auto service = make_service({t.root.path()});
  EXPECT_EQ(estimate_model(*service, t.root.path() + "/good").status, 200);
  EXPECT_EQ(estimate_model(*service, fs::canonical(t.root.path()).string() + "/good").status, 200);
  EXPECT_EQ(estimate_model(*service, "good").status, 200);
  EXPECT_EQ(estimate_model(*service, "./good/.").status, 200);
}

TEST(ServiceModelPaths, SymlinkLeadingOutOfTheRootsIsForbidden) {
  Roots t;
  fs::create_directory_symlink(t.outside.path() + "/secret", t.root.file_path("escape"));
  fs::create_directory_symlink(t.outside.path(), t.root.file_path("door"));
  auto service = make_service({t.root.path()});
  // An absolute name is answered relative to its root: no answer names the
  // server's folders. The link's target is not named either.
  for (const auto& [name, shown] : std::vector<std::pair<std::string, std::string>>{
           {"escape", "escape"}, {"door/secret", "door/secret"},
           {t.root.path() + "/escape", "escape"}}) {
    HttpResponse r = estimate_model(*service, name);
    EXPECT_EQ(r.status, 403) << name;
    EXPECT_EQ(error_code(r), "model_outside_roots");
    EXPECT_EQ(error_message(r), "model '" + shown +
                                    "': leads outside the model roots through a symbolic link; a "
                                    "link is followed only when its target lies inside a root");
    EXPECT_EQ(r.body.find(t.outside.path()), std::string::npos) << r.body;
  }
}

// A link whose target lies inside a root is followed, and the model keeps
// the link's own name: a GGUF or safetensors file linked to a
// content-addressed blob (as the Hugging Face and Ollama caches lay them
// out) is still a GGUF or a safetensors file, and its folder's config.json
// is the one beside the link.
TEST(ServiceModelPaths, SymlinkToABlobInsideTheRootsIsFollowedByItsOwnName) {
  Roots t;
  tiny_qwen3_gguf().write(t.root.make_dir("blobs") + "/sha256-0a1b");
  fs::create_symlink("blobs/sha256-0a1b", t.root.file_path("Tiny-Q4_0.gguf"));
  t.root.make_dir("snapshot");
  t.root.write_file("blobs/sha256-2c3d", qwen3_8b_config());
  write_safetensors_file(t.root.file_path("blobs/sha256-4e5f"),
                         {TensorSpec{"model.embed_tokens.weight", "F16", {4, 8}, std::nullopt}});
  fs::create_symlink("../blobs/sha256-2c3d", t.root.file_path("snapshot/config.json"));
  fs::create_symlink("../blobs/sha256-4e5f", t.root.file_path("snapshot/model.safetensors"));
  auto service = make_service({t.root.path()});

  HttpResponse r = estimate_model(*service, "Tiny-Q4_0.gguf");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_json(r)["engine"], "llamacpp");
  r = estimate_model(*service, "snapshot/model.safetensors");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_json(r)["weights_bytes"], 64);  // 4 x 8 F16
  EXPECT_EQ(body_json(r)["model_type"], "qwen3");

  json models = body_json(service->handle("GET", "/v1/models", ""))["models"];
  std::vector<std::string> names;
  for (const json& m : models) names.push_back(m["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Tiny-Q4_0.gguf", "good", "snapshot"}));
  EXPECT_EQ(models[0]["format"], "gguf");
  EXPECT_EQ(models[0]["error"], nullptr) << models[0];
}

TEST(ServiceModelPaths, SymlinkBetweenRootsIsAllowed) {
  Roots t;
  TempDir second;
  second.write_file("other/config.json", qwen3_8b_config());
  fs::create_directory_symlink(second.path() + "/other", t.root.file_path("alias"));
  auto service = make_service({t.root.path(), second.path()});
  EXPECT_EQ(estimate_model(*service, "alias").status, 200);
  EXPECT_EQ(estimate_model(*service, "other").status, 200);  // found in the second root
}

TEST(ServiceModelPaths, FileSymlinkedFromOutsideIsNotRead) {
  Roots t;
  t.root.make_dir("sneaky");
  fs::create_symlink(t.outside.path() + "/secret/config.json",
                     t.root.file_path("sneaky/config.json"));
  auto service = make_service({t.root.path()});
  HttpResponse r = estimate_model(*service, "sneaky");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(error_code(r), "model_unreadable");
  EXPECT_NE(error_message(r).find("config.json': resolves outside the model roots"),
            std::string::npos)
      << error_message(r);
}

TEST(ServiceModelPaths, MissingModelIsNotFound) {
  Roots t;
  fs::create_directory_symlink(t.root.file_path("nowhere"), t.root.file_path("dangling"));
  auto service = make_service({t.root.path()});
  for (const std::string name : {"absent", "good/absent"}) {
    HttpResponse r = estimate_model(*service, name);
    EXPECT_EQ(r.status, 404) << name;
    EXPECT_EQ(error_code(r), "model_not_found");
    EXPECT_EQ(error_message(r), "model '" + name + "': not found under the model roots");
  }
  HttpResponse r = estimate_model(*service, "dangling");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(error_code(r), "model_not_found");
  EXPECT_EQ(error_message(r), "model 'dangling': a symbolic link to nothing");
}

TEST(ServiceModelPaths, NoRootsMeansNothingCanBeNamed) {
  auto service = make_service(std::vector<std::string>{});
  EXPECT_EQ(estimate_model(*service, kExampleModel).status, 404);
  EXPECT_EQ(estimate_model(*service, kExamplesRoot + "/" + kExampleModel).status, 403);
}

TEST(ServiceModelPaths, HostileHeaderIsUnprocessableWithTheLoadersMessage) {
  TempDir root;
  root.write_file("hostile/config.json", qwen3_8b_config());
  // A safetensors header length of 2^40 bytes in a 10-byte file.
  root.write_file("hostile/model.safetensors",
                  std::string("\x00\x00\x00\x00\x00\x01\x00\x00{}", 10));
  root.write_file("notjson/config.json", "{not json");
  auto service = make_service({root.path()});
  for (const std::string name : {"hostile", "notjson"}) {
    HttpResponse r = estimate_model(*service, name);
    EXPECT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(error_code(r), "model_unreadable");
    // The file named relative to the root, as the request names the model.
    EXPECT_NE(error_message(r).find("'" + name + "/"), std::string::npos) << error_message(r);
    EXPECT_EQ(error_message(r).find(root.path()), std::string::npos) << error_message(r);
  }
  // Still serving.
  EXPECT_EQ(service->handle("GET", "/healthz", "").status, 200);
}

TEST(ServiceModelPaths, MissingRootFailsCreate) {
  TempDir t;
  t.write_file("file", "x");
  ServiceOptions options;
  options.model_roots = {t.file_path("absent")};
  Result<std::unique_ptr<Service>> service = Service::create(options);
  ASSERT_FALSE(service.ok());
  EXPECT_EQ(service.error().message(),
            "model root '" + t.file_path("absent") + "': No such file or directory");
  options.model_roots = {t.file_path("file")};
  service = Service::create(options);
  ASSERT_FALSE(service.ok());
  EXPECT_EQ(service.error().message(), "model root '" + t.file_path("file") + "': not a folder");
}

// Each model with its weights, as /v1/estimate prices them (config-only
// models: from their parameters at the config's dtype), and its root's
// position, never its path.
TEST(ServiceModels, ListsFoldersWithAConfig) {
  auto service = make_service({kQwen3Root, kExamplesRoot});
  HttpResponse r = service->handle("GET", "/v1/models", "");
  ASSERT_EQ(r.status, 200);
  auto model = [](std::string name, int root, uint64_t weights) {
    return json{{"name", name}, {"root", root}, {"format", "config"}, {"weights_bytes", weights},
                {"error", nullptr}};
  };
  EXPECT_EQ(body_json(r), (json{{"models",
                                 {model("Qwen3-0.6B", 0, 1192085504),
                                  model("Qwen3-1.7B-MLX-bf16", 0, 3441149952),
                                  model("Qwen3-32B", 0, 65524213760),
                                  model("Qwen3-8B", 0, 16381452288),
                                  model("Qwen3-14B-MLX-4bit", 1, 8307783680)}},
                                {"left_out", json::array()},
                                {"allow_hub", false}}));
  const json listed = body_json(r);
  for (const json& m : listed["models"]) {
    EXPECT_EQ(body_json(estimate_model(*service, m["name"]))["weights_bytes"], m["weights_bytes"]) << m;
  }
}

// A model that does not open is listed (a request may still name it), its
// size null and the loader's message beside it.
TEST(ServiceModels, AModelThatDoesNotOpenSaysWhy) {
  Roots t;
  t.root.write_file("notjson/config.json", "{not json");
  auto service = make_service({t.root.path()});
  json models = body_json(service->handle("GET", "/v1/models", ""))["models"];
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[1]["name"], "notjson");
  EXPECT_EQ(models[1]["weights_bytes"], nullptr);
  EXPECT_EQ(models[1]["error"], error_message(estimate_model(*service, "notjson")));
  EXPECT_NE(models[1]["error"].get<std::string>().find("'notjson/config.json'"), std::string::npos)
      << models[1];
}

TEST(ServiceModels, ListsGgufFilesAndFoldersButNotProjectorsOrLaterSplits) {
  Roots t;
  t.root.write_file("Qwen3-8B-Q4_K_M.gguf", "GGUF");
  t.root.write_file("big-00001-of-00002.gguf", "GGUF");
  t.root.write_file("big-00002-of-00002.gguf", "GGUF");
  t.root.write_file("mmproj-F16.gguf", "GGUF");
  t.root.write_file("notes.txt", "");
  t.root.write_file("quants/model-Q8_0.gguf", "GGUF");
  t.root.write_file("projector-only/mmproj-F16.gguf", "GGUF");
  fs::create_symlink(t.outside.path() + "/secret/config.json", t.root.file_path("escape.gguf"));
  t.root.make_dir("sneaky");
  fs::create_symlink(t.outside.path() + "/secret/config.json",
                     t.root.file_path("sneaky/model.gguf"));
  auto service = make_service({t.root.path()});
  json models = body_json(service->handle("GET", "/v1/models", ""))["models"];
  std::vector<std::string> names;
  for (const json& m : models) names.push_back(m["name"]);
  // "good" holds a config.json (Roots); "escape.gguf" and the sneaky file
  // resolve outside the roots.
  EXPECT_EQ(names, (std::vector<std::string>{"Qwen3-8B-Q4_K_M.gguf", "big-00001-of-00002.gguf",
                                             "good", "quants"}));
  std::vector<std::string> formats;
  for (const json& m : models) formats.push_back(m["format"]);
  EXPECT_EQ(formats, (std::vector<std::string>{"gguf", "gguf", "config", "gguf"}));
  // Refused, and said so.
  EXPECT_EQ(body_json(service->handle("GET", "/v1/models", ""))["left_out"],
            (json{{{"name", "escape.gguf"},
                   {"root", 0},
                   {"reason", "a symbolic link leading outside the model roots"}},
                  {{"name", "sneaky"},
                   {"root", 0},
                   {"reason", "its 'model.gguf' is a symbolic link leading outside the model roots"}}}));
}

TEST(ServiceModels, LeavesOutEscapesEmptyFoldersFilesAndLaterDuplicates) {
  Roots t;
  TempDir second;
  second.write_file("good/config.json", qwen3_8b_config());
  second.write_file("second-only/config.json", qwen3_8b_config());
  t.root.make_dir("empty");
  t.root.write_file("loose.json", "{}");
  fs::create_directory_symlink(t.outside.path() + "/secret", t.root.file_path("escape"));
  t.root.make_dir("sneaky");
  fs::create_symlink(t.outside.path() + "/secret/config.json",
                     t.root.file_path("sneaky/config.json"));
  auto service = make_service({t.root.path(), second.path()});
  json models = body_json(service->handle("GET", "/v1/models", ""))["models"];
  std::vector<std::string> names;
  for (const json& m : models) names.push_back(m["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"good", "second-only"}));
  EXPECT_EQ(models[0]["root"], 0);
  EXPECT_EQ(models[1]["root"], 1);
  // Nothing refused is left out without a word; what holds no model (an
  // empty folder, a loose file) is no model left out.
  fs::create_symlink(t.root.file_path("nowhere"), t.root.file_path("dangling"));
  EXPECT_EQ(body_json(service->handle("GET", "/v1/models", ""))["left_out"],
            (json{{{"name", "dangling"}, {"root", 0}, {"reason", "a symbolic link to nothing"}},
                  {{"name", "escape"},
                   {"root", 0},
                   {"reason", "a symbolic link leading outside the model roots"}},
                  {{"name", "sneaky"},
                   {"root", 0},
                   {"reason", "its 'config.json' is a symbolic link leading outside the model roots"}},
                  {{"name", "good"},
                   {"root", 1},
                   {"reason", "root 0 lists a model of this name first, and requests get that one"}}}));
}

// llama.cpp's draft model (model_draft) is found as the request's model
// is: under the roots, by its own name. It was the request's own model
// whatever the name, a missing or outside file included.
TEST(ServiceModelPaths, TheDraftModelIsResolvedThroughTheRoots) {
  Roots t;
  tiny_qwen3_gguf().write(t.root.file_path("tiny.gguf"));
  GgufWriter draft = tiny_qwen3_gguf();
  draft.add_tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64});  // 9,216 B
  draft.write(t.root.file_path("draft-Q4_K.gguf"));
  tiny_qwen3_gguf().write(t.outside.file_path("outside.gguf"));
  auto service = make_service({t.root.path()});
  auto with_draft = [&](const std::string& name) {
    return service->handle("POST", "/v1/estimate",
                           json{{"model", "tiny.gguf"}, {"model_draft", name}}.dump());
  };
  HttpResponse r = with_draft("draft-Q4_K.gguf");
  ASSERT_EQ(r.status, 200) << r.body;
  uint64_t draft_model_bytes = 0;
  const json report = body_json(r);
  for (const json& line : report["llamacpp"]["extras"]) {
    if (line["name"] == "draft model") draft_model_bytes += line["bytes"].get<uint64_t>();
  }
  json alone = body_json(service->handle(
      "POST", "/v1/estimate", json{{"model", "draft-Q4_K.gguf"}}.dump()));
  EXPECT_EQ(draft_model_bytes, alone["llamacpp"]["model_bytes"]) << r.body;
  EXPECT_GE(draft_model_bytes, 9216u);

  for (const auto& [name, why] : std::vector<std::pair<std::string, std::string>>{
           {"absent.gguf", "model 'absent.gguf': not found under the model roots"},
           {t.outside.file_path("outside.gguf"),
            "model '" + t.outside.file_path("outside.gguf") + "': not inside a model root"}}) {
    r = with_draft(name);
    EXPECT_EQ(r.status, 400) << name << r.body;
    EXPECT_EQ(error_code(r), "bad_request");
    EXPECT_NE(error_message(r).find(why), std::string::npos) << error_message(r);
  }
}

}  // namespace
}  // namespace memfit
