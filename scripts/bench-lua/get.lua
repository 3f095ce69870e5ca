-- GETs wrk's URL. A response counts as bad unless its status is 200 and its body contains EXPECT (when set);
-- the count is printed as "Bad responses: N", as post.lua does.
wrk.method = "GET"

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
