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
  for (const std::string& name :
       {std::string("escape"), std::string("door/secret"), t.root.path() + "/escape"}) {
    HttpResponse r = estimate_model(*service, name);
    EXPECT_EQ(r.status, 403) << name;
    EXPECT_EQ(error_code(r), "model_outside_roots");
    EXPECT_EQ(error_message(r), "model '" + name + "': resolves outside the model roots");
  }
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
  for (const std::string name : {"absent", "good/absent", "dangling"}) {
    HttpResponse r = estimate_model(*service, name);
    EXPECT_EQ(r.status, 404) << name;
    EXPECT_EQ(error_code(r), "model_not_found");
    EXPECT_EQ(error_message(r), "model '" + name + "': not found under the model roots");
  }
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
    EXPECT_NE(error_message(r).find(fs::canonical(root.path()).string() + "/" + name),
              std::string::npos)
        << error_message(r);
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

TEST(ServiceModels, ListsFoldersWithAConfig) {
  auto service = make_service({kQwen3Root, kExamplesRoot});
  HttpResponse r = service->handle("GET", "/v1/models", "");
  ASSERT_EQ(r.status, 200);
  const std::string qwen3 = fs::canonical(kQwen3Root).string();
  const std::string examples = fs::canonical(kExamplesRoot).string();
  EXPECT_EQ(body_json(r), (json{{"models",
                                 {{{"name", "Qwen3-0.6B"}, {"root", qwen3}, {"format", "config"}},
                                  {{"name", "Qwen3-1.7B-MLX-bf16"}, {"root", qwen3}, {"format", "config"}},
                                  {{"name", "Qwen3-32B"}, {"root", qwen3}, {"format", "config"}},
                                  {{"name", "Qwen3-8B"}, {"root", qwen3}, {"format", "config"}},
                                  {{"name", "Qwen3-14B-MLX-4bit"}, {"root", examples}, {"format", "config"}}}},
                                {"allow_hub", false}}));
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
  EXPECT_EQ(models[0]["root"], fs::canonical(t.root.path()).string());
}

}  // namespace
}  // namespace memfit
