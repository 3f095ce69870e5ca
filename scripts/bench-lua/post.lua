-- POSTs the JSON body in the file named by BODY_FILE to the path in wrk's URL; or, with BODIES_FILE instead, the
-- bodies on its lines in turn, each thread from its own start (lookups of many users).
-- A response counts as bad unless its status is 200 and its body contains EXPECT (when set); the count is
-- printed as "Bad responses: N" so a run that answered errors fast cannot pass for a fast run.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

local bodies_file = os.getenv("BODIES_FILE")
if bodies_file then
  local bodies = {}
  local next_body = 0

  function init(args)
    for line in io.lines(bodies_file) do bodies[#bodies + 1] = line end
    math.randomseed(os.time() + (id or 0))
    next_body = math.random(#bodies)
  end

  -- Defined only here: without it wrk sends its one static body without calling into Lua per request.
  function request()
    next_body = next_body % #bodies + 1
    return wrk.format(nil, nil, nil, bodies[next_body])
  end
else
  local f = assert(io.open(os.getenv("BODY_FILE"), "r"))
  wrk.body = f:read("*a")
  f:close()
end

local expect = os.getenv("EXPECT")
local threads = {}
bad = 0

function setup(thread)
  threads[#threads + 1] = thread
  thread:set("id", #threads)
end

function response(status, headers, body)
  if status ~= 200 or (expect and not body:find(expect, 1, true)) then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("bad") end
  io.write(string.format("Bad responses: %d\n", total))
end
