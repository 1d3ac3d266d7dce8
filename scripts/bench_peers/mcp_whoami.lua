-- wrk script for scripts/bench_http.py: `tools/call whoami` over Streamable HTTP (protocol 2025-11-25).
--
-- wrk keeps one Lua state per thread and tells request()/response() nothing about which
-- connection they serve, so a handshake cannot be tied to a connection from here. The bench
-- therefore opens the sessions itself before wrk starts (initialize, Mcp-Session-Id from the
-- answer, notifications/initialized), one per connection, and writes their ids to a file; each
-- thread takes its own slice (no session is shared between threads) and cycles through it, one
-- session per request in turn, so there is one session per connection on average. A stateless
-- server (no session id) gets requests without the header. Tokens cycle the same way,
-- independently: one token for the concurrent runs, or many for "callers in turn".
-- JSON-RPC ids are unique per thread, so no two requests in flight on a session share an id.
--
-- OFFSET (default 0) is where the cycle starts, so successive runs can carry on through a long
-- list of tokens instead of starting it over each time.
-- Usage: wrk ... -s mcp_whoami.lua URL -- SESSIONS_FILE TOKENS_FILE NTHREADS [OFFSET] [call|list|PARAMS_FILE]
-- (call: tools/call whoami, the default; list: tools/list; PARAMS_FILE: tools/call with the params
-- objects that file holds, one a line, e.g. {"name":"ask","arguments":{...}}, cycled like the tokens;
-- for scripts/bench_main_job.py)
-- Errors: any status but 200, and any 200 whose body is not a JSON-RPC result or is a tool error;
-- a tool error saying "busy:" (an ask refused by its in-flight bounds) is counted apart as `busy`.

local threads = {}
local next_tid = 0

function setup(thread)
   thread:set("tid", next_tid)
   next_tid = next_tid + 1
   table.insert(threads, thread)
end

local function read_lines(path)
   local lines = {}
   if path == nil or path == "" or path == "-" then return lines end
   for line in io.lines(path) do
      if line ~= "" then table.insert(lines, line) end
   end
   return lines
end

local function slice(lines, tid, nthreads)
   if #lines < nthreads then return lines end
   local mine = {}
   for i, line in ipairs(lines) do
      if (i - 1) % nthreads == tid then table.insert(mine, line) end
   end
   return mine
end

local sessions, tokens = {}, {}
local n = 0
local method = "call"
local params = {'{"name":"whoami","arguments":{}}'}
ok, status_errors, rpc_errors, busy = 0, 0, 0, 0
sample_ok, sample_error = "", ""

function init(args)
   local nthreads = tonumber(args[3] or "1")
   sessions = slice(read_lines(args[1]), tid, nthreads)
   tokens = slice(read_lines(args[2]), tid, nthreads)
   n = tonumber(args[4] or "0")
   method = args[5] or "call"
   if method ~= "call" and method ~= "list" then
      params = read_lines(method)
      method = "call"
   end
end

function request()
   n = n + 1
   local headers = {
      ["Content-Type"] = "application/json",
      ["Accept"] = "application/json, text/event-stream",
      ["MCP-Protocol-Version"] = "2025-11-25",
   }
   if #sessions > 0 then headers["Mcp-Session-Id"] = sessions[((n - 1) % #sessions) + 1] end
   if #tokens > 0 then headers["Authorization"] = "Bearer " .. tokens[((n - 1) % #tokens) + 1] end
   local body = '{"jsonrpc":"2.0","id":' .. n .. ',"method":"tools/call","params":'
      .. params[((n - 1) % #params) + 1] .. '}'
   if method == "list" then
      body = '{"jsonrpc":"2.0","id":' .. n .. ',"method":"tools/list","params":{}}'
   end
   return wrk.format("POST", nil, headers, body)
end

function response(status, headers, body)
   if status ~= 200 then
      status_errors = status_errors + 1
      if sample_error == "" then sample_error = "HTTP " .. status .. ": " .. string.sub(body or "", 1, 300) end
   elseif string.find(body, '"isError"%s*:%s*true') and string.find(body, 'busy:', 1, true) then
      busy = busy + 1
   elseif not string.find(body, '"result"%s*:') or string.find(body, '"isError"%s*:%s*true') then
      rpc_errors = rpc_errors + 1
      if sample_error == "" then sample_error = string.sub(body, 1, 300) end
   else
      ok = ok + 1
      if sample_ok == "" then sample_ok = string.sub(body, 1, 300) end
   end
end

local function json_string(text)
   return '"' .. string.gsub(tostring(text), '[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
end

function done(summary, latency, requests)
   local total_ok, total_status, total_rpc, total_busy = 0, 0, 0, 0
   local first_ok, first_error = "", ""
   for _, thread in ipairs(threads) do
      total_ok = total_ok + thread:get("ok")
      total_status = total_status + thread:get("status_errors")
      total_rpc = total_rpc + thread:get("rpc_errors")
      total_busy = total_busy + thread:get("busy")
      if first_ok == "" then first_ok = thread:get("sample_ok") end
      if first_error == "" then first_error = thread:get("sample_error") end
   end
   local e = summary.errors
   io.write(string.format(
      'BENCHJSON {"requests":%d,"duration_us":%d,"ok":%d,"status_errors":%d,"rpc_errors":%d,"busy":%d,' ..
      '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"wrk_status_errors":%d,"timeouts":%d,' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"mean_us":%.1f,"max_us":%d,"sample_ok":%s,"sample_error":%s}\n',
      summary.requests, summary.duration, total_ok, total_status, total_rpc, total_busy,
      e.connect, e.read, e.write, e.status, e.timeout,
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max,
      json_string(first_ok), json_string(first_error)))
end
