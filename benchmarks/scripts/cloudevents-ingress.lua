-- wrk script: binary-mode CloudEvents POSTs of 1 KiB data, each with its own ce-id.
wrk.method = "POST"
wrk.headers["content-type"] = "application/octet-stream"
wrk.headers["ce-specversion"] = "1.0"
wrk.headers["ce-source"] = "/bench"
wrk.headers["ce-type"] = "bench.event"
wrk.body = string.rep("x", 1024)
local counter = 0
local thread_id = 0
function setup(thread)
  thread:set("id", thread_id)
  thread_id = thread_id + 1
end
function request()
  counter = counter + 1
  wrk.headers["ce-id"] = id .. "-" .. counter
  return wrk.format(nil, nil, nil, nil)
end
