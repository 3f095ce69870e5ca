-- Lookups of many users in turn: each line of BODIES_FILE is a lookup body with one user's ID token, and each
-- connection goes through all of them from a random start. A response is bad unless its status is 200
-- ("Bad responses: N", as post.lua prints it).
local bodies = {}
local next_body = 0
local threads = {}
bad = 0

function init(args)
  local f = assert(io.open(os.getenv("BODIES_FILE"), "r"))
  for line in f:lines() do bodies[#bodies + 1] = line end
  f:close()
  math.randomseed(os.time() + id)
  next_body = math.random(#bodies)
end

local started = 0
function setup(thread)
  started = started + 1
  thread:set("id", started)
  threads[#threads + 1] = thread
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

function request()
  next_body = next_body % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[next_body])
end

function response(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("bad") end
  io.write(string.format("Bad responses: %d\n", total))
end
