-- POSTs the JSON body in the file named by BODY_FILE to the path in wrk's URL.
-- A response counts as bad unless its status is 200 and its body contains EXPECT (when set); the count is
-- printed as "Bad responses: N" so a run that answered errors fast cannot pass for a fast run.
local f = assert(io.open(os.getenv("BODY_FILE"), "r"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"

local expect = os.getenv("EXPECT")
local threads = {}
bad = 0

function setup(thread)
  threads[#threads + 1] = thread
end

function response(status, headers, body)
  if status ~= 200 or (expect and not body:find(expect, 1, true)) then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("bad") end
  io.write(string.format("Bad responses: %d\n", total))
end
