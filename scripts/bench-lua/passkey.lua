-- Passkey sign-ins (accounts/passkeySignIn:finalize): each line of BODIES_FILE is a finalize body for a challenge
-- the server issued, signed beforehand (scripts/bench_passkeys.py). Each body is sent once: a challenge is
-- single-use, so a body sent twice would be refused, never counted as a sign-in. Each wrk thread takes its own
-- slice of the lines. A response is bad unless its status is 200 and it carries an ID token ("Bad responses: N");
-- a thread that runs out of bodies sends "{}" (refused, so bad too) and counts it ("Exhausted: N"). wrk calls the
-- first thread's request() once before the run to check it: that body is taken, never sent.
local bodies = {}
local next_body = 1
local threads = {}
bad = 0
exhausted = 0

function init(args)
  local slices = tonumber(os.getenv("THREADS") or "1")
  local f = assert(io.open(os.getenv("BODIES_FILE"), "r"))
  local n = 0
  for line in f:lines() do
    n = n + 1
    if (n - id) % slices == 0 then bodies[#bodies + 1] = line end
  end
  f:close()
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
  local body = bodies[next_body]
  if body == nil then
    exhausted = exhausted + 1
    body = "{}"
  else
    bodies[next_body] = nil
    next_body = next_body + 1
  end
  return wrk.format(nil, nil, nil, body)
end

function response(status, headers, body)
  if status ~= 200 or not body:find('"idToken":"', 1, true) then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total, out = 0, 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("bad")
    out = out + thread:get("exhausted")
  end
  io.write(string.format("Bad responses: %d\nExhausted: %d\n", total, out))
end
