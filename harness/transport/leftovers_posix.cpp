// SPDX-License-Identifier: MIT
// Leftover processes (T-LEFTOVER): every server the run spawns carries a run marker in its
// environment, which the processes it starts inherit; after the run has stopped its servers (and
// killed their process groups), a process still carrying the marker is one the server left behind,
// typically a daemon in its own session. Linux reads /proc; elsewhere nothing is found.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>

#include "transport/transport.h"

namespace ctxo::transport {

namespace {

// Up to `max` bytes of a /proc file, read as they come: what it holds is small (an environment
// of a few KB), so no `max`-sized buffer is made (1 MiB for each of a machine's processes at
// every T-LEFTOVER scan).
std::string read_file(const std::string& path, std::size_t max) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string s;
  char buf[8192];
  while (s.size() < max) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, max - s.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return s;
}

// /proc/PID/stat: "pid (comm) S ppid pgrp session ...", comm may hold spaces and parentheses.
struct Stat {
  char state = '?';
  int ppid = 0, session = 0;
};
Stat read_stat(int pid) {
  Stat st;
  const std::string s = read_file("/proc/" + std::to_string(pid) + "/stat", 4096);
  const auto close = s.rfind(')');
  if (close == std::string::npos) return st;
  std::istringstream in(s.substr(close + 1));
  int pgrp = 0;
  in >> st.state >> st.ppid >> pgrp >> st.session;
  return st;
}

bool alive(int pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  const char state = read_stat(pid).state;
  return state != 'Z' && state != 'X';
}

}  // namespace

std::string new_run_marker() {
  std::random_device rd;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d-%08x%08x", static_cast<int>(::getpid()), rd(), rd());
  return buf;
}

std::vector<Leftover> find_leftovers(const std::string& marker) {
  std::vector<Leftover> out;
  if (marker.empty()) return out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  const std::string needle = std::string(kRunMarkerVar) + "=" + marker;
  const int self = static_cast<int>(::getpid());
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0' || pid == self) continue;
    const std::string dir = "/proc/" + std::string(e->d_name);
    // Another user's process cannot be read (and is none of ours): skipped.
    const std::string env = read_file(dir + "/environ", 1 << 20);
    bool marked = false;
    for (std::size_t at = 0; at < env.size();) {
      const auto nul = env.find('\0', at);
      const std::size_t len = (nul == std::string::npos ? env.size() : nul) - at;
      if (env.compare(at, len, needle) == 0) {
        marked = true;
        break;
      }
      if (nul == std::string::npos) break;
      at = nul + 1;
    }
    if (!marked || !alive(static_cast<int>(pid))) continue;
    Leftover l;
    l.pid = static_cast<int>(pid);
    std::string cmd = read_file(dir + "/cmdline", 4096);
    while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.empty()) {
      // A kernel thread or a process that cleared its arguments: its name, as ps shows it.
      cmd = read_file(dir + "/comm", 64);
      while (!cmd.empty() && cmd.back() == '\n') cmd.pop_back();
      cmd = "[" + cmd + "]";
    }
    l.command = std::move(cmd);
    const Stat st = read_stat(l.pid);
    l.parent = st.ppid;
    l.own_session = st.session == l.pid;
    out.push_back(std::move(l));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const Leftover& a, const Leftover& b) { return a.pid < b.pid; });
  return out;
}

std::vector<Leftover> settle_leftovers(const std::string& marker, std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    // Those that are our children (we are a subreaper) are reaped as they end.
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    auto found = find_leftovers(marker);
    if (found.empty() || std::chrono::steady_clock::now() >= deadline) return found;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::vector<Leftover> end_leftovers(const std::string& marker, const std::vector<Leftover>& found,
                                    std::chrono::milliseconds grace) {
  for (const auto& l : found) ::kill(l.pid, SIGTERM);
  auto left = settle_leftovers(marker, grace);
  if (left.empty()) return left;
  for (const auto& l : left) ::kill(l.pid, SIGKILL);
  return settle_leftovers(marker, std::chrono::milliseconds(1000));
}

}  // namespace ctxo::transport
