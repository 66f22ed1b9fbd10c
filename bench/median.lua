-- bench/median.lua: the median of a list of numbers (the list is left as
-- it is; of an even count, the lower middle one), for the scripts that
-- compare figures taken in turns (load.lua, callbacks.lua, run.lua).
return function(list)
  local l = {}
  for i, v in ipairs(list) do l[i] = v end
  table.sort(l)
  return l[math.floor((#l + 1) / 2)]
end
