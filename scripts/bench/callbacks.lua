-- wrk script: each thread walks its own share of the callback URLs in URLS_FILE, so no URL is
-- sent twice (a second use of a nonce is a 409, which wrk counts as non-2xx).
local urls = {}
local thread_count = tonumber(os.getenv("WRK_THREADS") or "2")
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end

function init(args)
  local index = 0
  for line in io.lines(os.getenv("URLS_FILE")) do
    if index % thread_count == id then urls[#urls + 1] = line end
    index = index + 1
  end
  position = 0
end

function request()
  position = position + 1
  if position > #urls then position = 1 end
  return wrk.format("GET", urls[position])
end
