# expect: stable_pass
# A correct merge by sweeping endpoint events (opening before closing at the same point).
def merge_intervals(intervals):
    events = sorted([(lo, 0) for lo, _ in intervals] + [(hi, 1) for _, hi in intervals])
    out, depth, start = [], 0, None
    for x, kind in events:
        if kind == 0:
            if depth == 0:
                if out and out[-1][1] >= x:
                    start = out.pop()[0]
                else:
                    start = x
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                out.append([start, x])
    return out
