// Ollama's names, manifests and params (memfit/ollama_store.h), from bytes.
#include <gtest/gtest.h>

#include <string>

#include "memfit/ollama_store.h"
#include "support/sha256.h"

namespace memfit {
namespace {

const std::string kHexA(64, 'a');
const std::string kHexB(64, 'b');

std::string layer(std::string_view media_type, const std::string& hex, uint64_t size) {
  return "{\"mediaType\":\"" + std::string(media_type) + "\",\"digest\":\"sha256:" + hex +
         "\",\"size\":" + std::to_string(size) + "}";
}

TEST(Sha256Support, KnownAnswers) {
  // FIPS 180-4's examples: "abc", and the empty message.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // 56 bytes: the padding spills into a second block.
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(OllamaName, DefaultsFillHostNamespaceAndTag) {
  Result<OllamaName> bare = parse_ollama_name("qwen3");
  ASSERT_TRUE(bare.ok()) << bare.error().message();
  EXPECT_EQ(bare->manifest_path(), "registry.ollama.ai/library/qwen3/latest");
  EXPECT_EQ(bare->display(), "qwen3:latest");

  Result<OllamaName> tagged = parse_ollama_name("qwen3:8b");
  ASSERT_TRUE(tagged.ok());
  EXPECT_EQ(tagged->manifest_path(), "registry.ollama.ai/library/qwen3/8b");
  EXPECT_EQ(tagged->display(), "qwen3:8b");

  Result<OllamaName> user = parse_ollama_name("me/tuned");
  ASSERT_TRUE(user.ok());
  EXPECT_EQ(user->manifest_path(), "registry.ollama.ai/me/tuned/latest");
  EXPECT_EQ(user->display(), "me/tuned:latest");

  Result<OllamaName> hf = parse_ollama_name("hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M");
  ASSERT_TRUE(hf.ok());
  EXPECT_EQ(hf->manifest_path(), "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF/Q4_K_M");
  EXPECT_EQ(hf->display(), "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M");
}

TEST(OllamaName, NamesOllamaRefusesAreUsageErrors) {
  struct Case {
    std::string text;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "model: ollama:'': no model name"},
           {"a/b/c/d", "model: ollama:'a/b/c/d': at most host/namespace/model"},
           {"../etc:passwd", "model: ollama:'../etc:passwd': an Ollama name may not hold \"..\""},
           {"my.ns/m", "model: ollama:'my.ns/m': a namespace is 1 or more of A-Z a-z 0-9 _ -"},
           {"m:", "model: ollama:'m:': the tag is 1 or more of A-Z a-z 0-9 . _ -"},
           {"/m", "model: ollama:'/m': a namespace is 1 or more of A-Z a-z 0-9 _ -"},
           {"m+Q4_0", "model: ollama:'m+Q4_0': give [host/][namespace/]model[:tag], without +build or @digest"},
           {"m o", "model: ollama:'m o': each part is 1 or more of A-Z a-z 0-9 . _ -"},
       }) {
    Result<OllamaName> name = parse_ollama_name(c.text);
    ASSERT_FALSE(name.ok()) << c.text;
    EXPECT_EQ(name.error().kind(), ErrorKind::kUsage);
    EXPECT_EQ(name.error().message(), c.message);
  }
  // Ollama's MaxNamePartLen bounds the whole name: 128 bytes pass, 129 do not.
  EXPECT_TRUE(parse_ollama_name(std::string(128, 'm')).ok());
  EXPECT_FALSE(parse_ollama_name(std::string(129, 'm')).ok());
}

TEST(OllamaManifest, ReadsEachLayerInOrder) {
  const std::string text =
      "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\","
      "\"config\":" + layer("application/vnd.docker.container.image.v1+json", kHexB, 485) +
      ",\"layers\":[" + layer("application/vnd.ollama.image.model", kHexA, 4661211424) + "," +
      layer("application/vnd.ollama.image.params", kHexB, 110) + "]}";
  Result<OllamaManifest> m = parse_ollama_manifest(text);
  ASSERT_TRUE(m.ok()) << m.error().message();
  ASSERT_EQ(m->layers.size(), 2u);
  EXPECT_EQ(m->layers[0].media_type, kOllamaModelMediaType);
  EXPECT_EQ(m->layers[0].digest_hex, kHexA);
  EXPECT_EQ(m->layers[0].size_bytes, 4661211424u);
  EXPECT_EQ(m->layers[0].blob_path(), "blobs/sha256-" + kHexA);
  EXPECT_EQ(m->layers[1].media_type, kOllamaParamsMediaType);
}

TEST(OllamaManifest, BrokenManifestsAreOneLineErrors) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::string model = "application/vnd.ollama.image.model";
  for (const Case& c : std::vector<Case>{
           {"[]", "manifest: not a JSON object"},
           {"{}", "manifest: no \"layers\" array"},
           {"{\"layers\":[{\"digest\":\"sha256:" + kHexA + "\"}]}", "manifest: layer 0: no mediaType string"},
           {"{\"layers\":[" + layer(model, "../../x", 1) + "]}",
            "manifest: layer 0: digest 'sha256:../../x' is not sha256: and 64 lower-case hex digits"},
           {"{\"layers\":[" + layer(model, std::string(64, 'A'), 1) + "]}",
            "manifest: layer 0: digest 'sha256:" + std::string(64, 'A') +
                "' is not sha256: and 64 lower-case hex digits"},
           {"{\"layers\":[{\"mediaType\":\"x\",\"digest\":\"sha256:" + kHexA + "\",\"size\":-1}]}",
            "manifest: layer 0: size is not a non-negative integer"},
           {std::string(17, '[') + std::string(17, ']'), "manifest: nested deeper than 16 levels"},
       }) {
    Result<OllamaManifest> m = parse_ollama_manifest(c.text);
    ASSERT_FALSE(m.ok()) << c.text;
    EXPECT_EQ(m.error().kind(), ErrorKind::kInput);
    EXPECT_EQ(m.error().message(), c.message);
  }
  Result<OllamaManifest> truncated = parse_ollama_manifest("{\"layers\":[");
  ASSERT_FALSE(truncated.ok());
  EXPECT_TRUE(truncated.error().message().starts_with("manifest: not JSON: parse error")) << truncated.error().message();
}

TEST(OllamaManifest, BoundsAreCheckedBeforeAnythingIsBuilt) {
  // 1 MiB + 1 bytes: refused by its size, before it is parsed.
  const std::string big(kMaxOllamaManifestBytes + 1, ' ');
  Result<OllamaManifest> m = parse_ollama_manifest(big);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(),
            "manifest: 1048577 bytes, more than the 1048576 an Ollama manifest may hold");
  // 257 layers: one past the bound.
  std::string layers;
  for (size_t i = 0; i <= kMaxOllamaLayers; ++i) layers += (i ? "," : "") + layer("x", kHexA, 1);
  Result<OllamaManifest> many = parse_ollama_manifest("{\"layers\":[" + layers + "]}");
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error().message(), "manifest: 257 layers, more than 256");
}

TEST(OllamaParams, NumCtxAndEveryValueAsJsonText) {
  Result<OllamaParameters> p =
      parse_ollama_params(R"({"temperature":0.6,"num_ctx":8192,"stop":["<|im_end|>"]})");
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->num_ctx, 8192u);
  ASSERT_EQ(p->values.size(), 3u);  // sorted by name
  EXPECT_EQ(p->values[0], (std::pair<std::string, std::string>{"num_ctx", "8192"}));
  EXPECT_EQ(p->values[1], (std::pair<std::string, std::string>{"stop", "[\"<|im_end|>\"]"}));
  EXPECT_EQ(p->values[2], (std::pair<std::string, std::string>{"temperature", "0.6"}));

  Result<OllamaParameters> none = parse_ollama_params("{}");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->num_ctx.has_value());
}

TEST(OllamaParams, ANumCtxThatIsNoPositiveIntegerIsAnError) {
  for (const std::string& text : {std::string(R"({"num_ctx":0})"), std::string(R"({"num_ctx":-5})"),
                                  std::string(R"({"num_ctx":"8192"})")}) {
    Result<OllamaParameters> p = parse_ollama_params(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_TRUE(p.error().message().starts_with("params: num_ctx ")) << p.error().message();
  }
  Result<OllamaParameters> zero = parse_ollama_params(R"({"num_ctx":0})");
  EXPECT_EQ(zero.error().message(), "params: num_ctx 0 is not a positive integer");
  Result<OllamaParameters> list = parse_ollama_params("[1]");
  EXPECT_EQ(list.error().message(), "params: not a JSON object");
}

}  // namespace
}  // namespace memfit
