// Design note: the walk is done on the kernel's cgroup path, mapped to a
// directory under the hierarchy's mount point. In a container without a
// cgroup namespace the mount shows only a subtree (mountinfo's root field,
// e.g. "/docker/ab12"), so that prefix is cut from the process's path.
// When /proc/self/mountinfo is absent (fake trees, restricted /proc), the
// usual mount points are assumed; directories that do not exist on the way
// up simply have no limit files, so the walk still reaches the mount point,
// which in a container is the container's own cgroup.
#include "host/cgroup.h"

#include <algorithm>

#include "memfit/untrusted_text.h"
#include "base/split_fields.h"
#include "host/proc_fields.h"

namespace memfit::host {
namespace {

// Nesting deeper than this is not a real hierarchy (systemd uses ~5).
constexpr size_t kMaxCgroupDepth = 256;

// mountinfo writes ' ', '\t', '\n' and '\\' in paths as "\ooo" octal.
std::string unescape_mount_path(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      const std::string_view digits = text.substr(i + 1, 3);
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out.push_back(
            static_cast<char>((digits[0] - '0') * 64 + (digits[1] - '0') * 8 + (digits[2] - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

// "/a/b" -> {"a", "b"}; "/" -> {}. nullopt for a relative path or one with
// "." or ".." components (never written by the kernel; refused so a fake
// tree cannot walk out of the sysroot).
std::optional<std::vector<std::string>> path_components(std::string_view path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  std::vector<std::string> components;
  for (std::string_view part : split_fields(path.substr(1), '/')) {
    if (part.empty()) continue;
    if (part == "." || part == "..") return std::nullopt;
    components.emplace_back(part);
  }
  return components;
}

std::string join_components(const std::vector<std::string>& components, size_t count) {
  std::string path;
  for (size_t i = 0; i < count; ++i) path += "/" + components[i];
  return path.empty() ? "/" : path;
}

struct LimitFiles {
  const char* limit;
  const char* usage;
  std::vector<const char*> inactive_file_keys;  // first present wins
};

LimitFiles limit_files(int version) {
  if (version == 1) {
    return {
        "memory.limit_in_bytes", "memory.usage_in_bytes", {"total_inactive_file", "inactive_file"}};
  }
  return {"memory.max", "memory.current", {"inactive_file"}};
}

// Reads one "<decimal>\n" file. nullopt when absent or (with a warning)
// unreadable or malformed. `max_is_none`: "max" reads as "no value".
std::optional<uint64_t> read_number_file(HostFiles& files, const std::string& path,
                                         bool max_is_none, std::vector<std::string>& warnings) {
  Result<std::optional<std::string>> text = files.read(path);
  if (!text.ok()) {
    warnings.push_back("cgroup: " + text.error().message());
    return std::nullopt;
  }
  if (!text.value()) return std::nullopt;
  const std::string_view value = trim_space(**text);
  if (max_is_none && value == "max") return std::nullopt;
  std::optional<uint64_t> number = parse_decimal(value);
  if (!number) {
    warnings.push_back("cgroup: " + path + ": \"" + escape_untrusted(value) + "\" is not a number");
  }
  return number;
}

uint64_t read_inactive_file(HostFiles& files, const std::string& dir, const LimitFiles& names,
                            std::vector<std::string>& warnings) {
  const std::string path = dir + "/memory.stat";
  Result<std::optional<std::string>> text = files.read(path);
  if (!text.ok()) {
    warnings.push_back("cgroup: " + text.error().message());
    return 0;
  }
  if (!text.value()) return 0;
  for (const char* key : names.inactive_file_keys) {
    Result<std::optional<uint64_t>> value = find_stat_field(**text, key);
    if (!value.ok()) {
      warnings.push_back("cgroup: " + path + ": " + value.error().message());
      return 0;
    }
    if (value.value()) return **value;
  }
  return 0;
}

}  // namespace

std::optional<CgroupMembership> parse_proc_self_cgroup(std::string_view text) {
  std::optional<CgroupMembership> unified;
  for (std::string_view line : split_fields(text, '\n')) {
    // The path may itself contain ':', so split at the first two only.
    const size_t first = line.find(':');
    if (first == std::string_view::npos) continue;
    const size_t second = line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, first);
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string_view path = line.substr(second + 1);
    if (path.empty()) continue;
    if (id == "0" && controllers.empty()) {
      unified = CgroupMembership{2, std::string(path)};
      continue;
    }
    for (std::string_view controller : split_fields(controllers, ',')) {
      if (controller == "memory") return CgroupMembership{1, std::string(path)};
    }
  }
  return unified;
}

std::optional<CgroupMount> find_cgroup_mount(std::string_view mountinfo, int version) {
  for (std::string_view line : split_fields(mountinfo, '\n')) {
    std::vector<std::string_view> fields;
    for (std::string_view field : split_fields(line, ' ')) {
      if (!field.empty()) fields.push_back(field);
    }
    const auto dash = std::find(fields.begin(), fields.end(), std::string_view("-"));
    // Before the dash: at least id, parent, device, root, mount point,
    // options; after it: fstype, source, super options.
    if (dash - fields.begin() < 6 || fields.end() - dash < 4) continue;
    const std::string_view fstype = dash[1];
    const std::string_view super_options = dash[3];
    bool match = false;
    if (version == 2) {
      match = fstype == "cgroup2";
    } else if (fstype == "cgroup") {
      for (std::string_view option : split_fields(super_options, ',')) {
        if (option == "memory") match = true;
      }
    }
    if (match) return CgroupMount{unescape_mount_path(fields[4]), unescape_mount_path(fields[3])};
  }
  return std::nullopt;
}

std::optional<CgroupMemory> read_cgroup_memory(HostFiles& files,
                                               std::vector<std::string>& warnings) {
  Result<std::optional<std::string>> self_cgroup = files.read("/proc/self/cgroup");
  if (!self_cgroup.ok()) {
    warnings.push_back("cgroup: " + self_cgroup.error().message());
    return std::nullopt;
  }
  if (!self_cgroup.value()) return std::nullopt;
  const std::optional<CgroupMembership> membership = parse_proc_self_cgroup(**self_cgroup);
  if (!membership) return std::nullopt;

  CgroupMount mount{membership->version == 2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory", "/"};
  Result<std::optional<std::string>> mountinfo = files.read("/proc/self/mountinfo");
  if (mountinfo.ok() && mountinfo.value()) {
    if (auto found = find_cgroup_mount(**mountinfo, membership->version)) mount = *found;
  }

  const auto path = path_components(membership->path);
  const auto root = path_components(mount.root);
  if (!path || !root) {
    warnings.push_back("cgroup: /proc/self/cgroup: path \"" +
                       escape_untrusted(membership->path) +
                       "\" is not a plain absolute path; cgroup limits ignored");
    return std::nullopt;
  }
  if (path->size() > kMaxCgroupDepth) {
    warnings.push_back("cgroup: /proc/self/cgroup: path nests deeper than " +
                       std::to_string(kMaxCgroupDepth) + " levels; cgroup limits ignored");
    return std::nullopt;
  }
  // The levels visible under the mount point are those below its root. A
  // process whose cgroup lies outside that subtree sees only the mount
  // point itself.
  size_t hidden = 0;
  if (root->size() <= path->size() && std::equal(root->begin(), root->end(), path->begin())) {
    hidden = root->size();
  } else {
    hidden = path->size();
  }

  const LimitFiles names = limit_files(membership->version);
  std::optional<CgroupMemory> tightest;
  for (size_t depth = path->size() + 1; depth-- > hidden;) {
    std::string dir = mount.mount_point;
    for (size_t i = hidden; i < depth; ++i) dir += "/" + (*path)[i];
    std::optional<uint64_t> limit =
        read_number_file(files, dir + "/" + names.limit, /*max_is_none=*/true, warnings);
    if (!limit || *limit >= kCgroupNoLimitBytes) continue;

    CgroupMemory level;
    level.version = membership->version;
    level.limit_bytes = *limit;
    const std::string usage_path = dir + "/" + names.usage;
    std::optional<uint64_t> usage =
        read_number_file(files, usage_path, /*max_is_none=*/false, warnings);
    if (!usage) {
      warnings.push_back("cgroup: " + usage_path +
                         " unreadable; the limit is taken as the headroom");
    }
    level.usage_bytes = usage.value_or(0);
    level.inactive_file_bytes = read_inactive_file(files, dir, names, warnings);
    // Levels at or above the mount root are named with the hidden prefix.
    level.path = join_components(*path, depth);
    if (!tightest || level.headroom_bytes() < tightest->headroom_bytes()) tightest = level;
  }
  return tightest;
}

}  // namespace memfit::host
