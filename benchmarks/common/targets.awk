# targets.awk - the words under a comparison's table of targets, shared by
# benchmarks/gomp-compare.sh and benchmarks/overhead/compare.sh (prepended
# to their awk programs): say(kind, text) prints the sentence that explains
# a kind of target row, and whether it was met here (the caller's array
# miss[kind] holds the rows that missed), wrapped at 96 columns.
function say(kind, text) {
    wrap(text ((kind in miss) ? " Missed here: " miss[kind] "." : " Met here."), "  -", "   ")
}
function wrap(text, first, rest,   words, nw, i, line) {
    nw = split(text, words, " "); line = first
    for (i = 1; i <= nw; i++) {
        if (length(line) + 1 + length(words[i]) > 96) { print line; line = rest }
        line = line (line == "" ? "" : " ") words[i]
    }
    print line
}
