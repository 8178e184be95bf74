#include "support/safetensors_writer.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "memfit/safetensors.h"

namespace memfit {
namespace {

uint64_t tensor_bytes(const TensorSpec& tensor) {
  if (tensor.data_bytes) return *tensor.data_bytes;
  uint64_t bytes = safetensors_dtype_width(tensor.dtype);
  if (bytes == 0) {
    std::fprintf(stderr, "safetensors_writer: %s needs data_bytes\n", tensor.dtype.c_str());
    std::abort();
  }
  for (uint64_t dim : tensor.shape) bytes *= dim;
  return bytes;
}

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
      out += escaped;
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace

std::string safetensors_length_prefix(uint64_t header_bytes) {
  std::string prefix(8, '\0');
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((header_bytes >> (8 * i)) & 0xff);
  return prefix;
}

std::string safetensors_header_json(const std::vector<TensorSpec>& tensors,
                                    std::string_view metadata_json) {
  std::string json = "{";
  if (!metadata_json.empty()) {
    json += "\"__metadata__\":";
    json += metadata_json;
  }
  uint64_t offset = 0;
  for (const TensorSpec& tensor : tensors) {
    if (json.size() > 1) json += ",";
    append_json_string(json, tensor.name);
    json += ":{\"dtype\":";
    append_json_string(json, tensor.dtype);
    json += ",\"shape\":[";
    for (size_t i = 0; i < tensor.shape.size(); ++i) {
      if (i > 0) json += ",";
      json += std::to_string(tensor.shape[i]);
    }
    const uint64_t end = offset + tensor_bytes(tensor);
    json += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(end) + "]}";
    offset = end;
  }
  json += "}";
  json.append((8 - json.size() % 8) % 8, ' ');
  return json;
}

uint64_t safetensors_data_bytes(const std::vector<TensorSpec>& tensors) {
  uint64_t total_bytes = 0;
  for (const TensorSpec& tensor : tensors) total_bytes += tensor_bytes(tensor);
  return total_bytes;
}

std::string safetensors_file_bytes(const std::vector<TensorSpec>& tensors,
                                   std::string_view metadata_json) {
  const std::string json = safetensors_header_json(tensors, metadata_json);
  std::string bytes = safetensors_length_prefix(json.size()) + json;
  bytes.append(safetensors_data_bytes(tensors), '\0');
  return bytes;
}

uint64_t write_safetensors_file(const std::string& path, const std::vector<TensorSpec>& tensors,
                                TensorData data, std::string_view metadata_json) {
  const std::string json = safetensors_header_json(tensors, metadata_json);
  const uint64_t data_bytes = safetensors_data_bytes(tensors);
  const uint64_t file_bytes = 8 + json.size() + data_bytes;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    const std::string head = safetensors_length_prefix(json.size()) + json;
    out.write(head.data(), static_cast<std::streamsize>(head.size()));
    if (data == TensorData::kZeros) {
      const std::string zeros(64 * 1024, '\0');
      for (uint64_t left = data_bytes; left > 0;) {
        const uint64_t chunk = left < zeros.size() ? left : zeros.size();
        out.write(zeros.data(), static_cast<std::streamsize>(chunk));
        left -= chunk;
      }
    }
    if (!out) {
      std::perror(("write_safetensors_file: " + path).c_str());
      std::abort();
    }
  }
  // Extending with resize_file leaves a hole: no data blocks are written.
  if (data == TensorData::kSparse) std::filesystem::resize_file(path, file_bytes);
  return file_bytes;
}

}  // namespace memfit
