#!/usr/bin/env python3
"""Independent oracles for the bundled games in gdl/.

Each game is implemented directly in Python from its rules (the GDL files are NOT read), with a
state that mirrors the GDL fluents one-to-one (board, whose turn, step counters, ...), so that
the figures can be compared with what an engine computes from the GDL:

  * BFS layers of reachable states from the initial state; terminal states are counted but not
    expanded; a state is counted once, in the layer of its shortest distance from the start;
  * the total number of states and of terminal states;
  * two-player games: the value of the initial state for each role, meaning the reward the role
    can guarantee when it maximises its own goal and the other role minimises it (for the
    zero-sum games this is the minimax value);
  * single-player games: the best reachable terminal reward and the length of the shortest
    plan reaching it; for games with action costs also the least total cost of such a plan;
  * the strong solution: for every reachable state its outcome under optimal play, counted per
    outcome (`outcome R1/R2 N`). The role to move picks the successor whose outcome maximises
    its own reward minus the other role's, ties broken by its own reward (for zero-sum games
    this is minimax; a single role maximises its reward). This is the rule `symgame solve`
    documents, computed here by memoised recursion over explicit states.

usage:
  oracles.py tictactoe
  oracles.py connect4 COLS ROWS [--no-count] [--no-value] [--alphabeta]
                                  (the value comes from full memoised minimax over the counted
                                   states up to 5 M states, else from alpha-beta negamax;
                                   5x4 takes about 1 min, 6x4 and 5x5 about 11 min each)
  oracles.py nim H1 H2 ...
  oracles.py chomp COLS ROWS
  oracles.py eight-puzzle [--easy]
  oracles.py eight-puzzle-distances           (BFS from the goal layout, no step counter)
  oracles.py hanoi N
  oracles.py climb
  oracles.py prisoners
  oracles.py single-step
  oracles.py pick-log
  oracles.py toll                             (toll_roads: action costs, cheapest plan by Dijkstra)
  oracles.py all [--slow]                     (every game above; --slow adds Connect Four 5x4)

Add --write to store the result as gdl/<game>.expect instead of printing it.
Standard library only.
"""
import sys
import time
from collections import deque
from pathlib import Path

GDL_DIR = Path(__file__).resolve().parent.parent.parent / "gdl"


# --------------------------------------------------------------------------------------------
# Generic machinery.  A game is an object with:
#   name, roles, init, terminal(s), successors(s) -> list of (move, state),
#   goals(s) -> {role: value} (called on terminal states), mover(s) -> role (turn-taking) or
#   the single role.

def bfs(game, successors=None):
    """Layer sizes, the reachable states and the terminal states with their depth.
    `successors(s)` lists the (move, state) pairs of a non-terminal state (by default
    game.successors; nplayer.py passes its joint moves)."""
    successors = successors or game.successors
    seen = {game.init}
    layer = [game.init]
    layers = []
    terminals = {}
    depth = 0
    while layer:
        layers.append(len(layer))
        nxt = []
        for s in layer:
            if game.terminal(s):
                terminals[s] = depth
                continue
            for _, t in successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        layer = nxt
        depth += 1
    return layers, seen, terminals


def backward_induction(game, leaf, choose):
    """Memoised values of the states reached from the initial state: leaf(s) for a terminal
    state, else choose(s, the values of its successors). Returns (the initial state's value,
    {state: value} for every state valued)."""
    memo = {}

    def val(s):
        v = memo.get(s)
        if v is not None:
            return v
        if game.terminal(s):
            v = leaf(s)
        else:
            v = choose(s, [val(t) for _, t in game.successors(s)])
        memo[s] = v
        return v

    return val(game.init), memo


def security_values(game):
    """For each role, the value it can guarantee from the initial state (memoised DFS)."""
    out = {}
    for role in game.roles:
        out[role], _ = backward_induction(
            game,
            lambda s: game.goals(s)[role],
            lambda s, vs: max(vs) if game.mover(s) == role else min(vs))
    return out


def goal_tuple(game, s):
    """The goals of a terminal state, in role order."""
    return tuple(game.goals(s)[r] for r in game.roles)


def subgame_perfect(game):
    """Backward induction (each mover maximises its own goal).  Returns (payoffs, ties) where
    ties counts the states in which the mover had several best moves with different payoffs
    for the other role (then the result depends on tie-breaking)."""
    ties = [0]

    def choose(s, vs):
        i = game.roles.index(game.mover(s))
        best = max(x[i] for x in vs)
        cands = {x for x in vs if x[i] == best}
        if len(cands) > 1:
            ties[0] += 1
        return min(cands)

    v, _ = backward_induction(game, lambda s: goal_tuple(game, s), choose)
    return dict(zip(game.roles, v)), ties[0]


def strong_solution(game):
    """Outcome (a tuple of rewards in role order) of every reachable state under the preference
    rule of the module doc; returns {outcome: count} and the initial state's outcome."""
    sys.setrecursionlimit(100000)

    def key(o, i):
        own = o[i]
        other = sum(v for j, v in enumerate(o) if j != i)
        return (own - other, own) if len(o) > 1 else (own, own)

    def choose(s, vs):
        i = game.roles.index(game.mover(s))
        return max(vs, key=lambda o: key(o, i))

    init, memo = backward_induction(game, lambda s: goal_tuple(game, s), choose)
    counts = {}
    for o in memo.values():
        counts[o] = counts.get(o, 0) + 1
    return counts, init


def solution_lines(game):
    counts, init = strong_solution(game)
    fmt = lambda o: "/".join(map(str, o))
    return [f"solved_initial {fmt(init)}"] + [
        f"outcome {fmt(o)} {counts[o]}" for o in sorted(counts, reverse=True)]


def single_player_best(terminals, game):
    best = max(game.goals(s)[game.roles[0]] for s in terminals)
    plan = min(d for s, d in terminals.items() if game.goals(s)[game.roles[0]] == best)
    return best, plan


def report(game, args, layers=None, total=None, terminal=None, values=None, best=None,
           plan=None, comments=(), solution=(), plan_cost=None):
    lines = [f"# produced by scripts/oracles/oracles.py {' '.join(args)}"]
    lines += [f"# {c}" for c in comments]
    lines.append(f"game {game.name}")
    lines.append("roles " + " ".join(game.roles))
    if layers is not None:
        lines.append("layers " + " ".join(map(str, layers)))
    if total is not None:
        lines.append(f"states {total}")
    if terminal is not None:
        lines.append(f"terminal {terminal}")
    if values:
        for r in game.roles:
            lines.append(f"value {r} {values[r]}")
    if best is not None:
        lines.append(f"best {best}")
    if plan is not None:
        lines.append(f"plan_length {plan}")
    if plan_cost is not None:
        lines.append(f"plan_cost {plan_cost}")
    lines += list(solution)
    return "\n".join(lines) + "\n"


def standard(game, args, comments=(), two_player=True):
    layers, seen, terms = bfs(game)
    if two_player:
        values = security_values(game)
        return report(game, args, layers, len(seen), len(terms), values=values, comments=comments,
                      solution=solution_lines(game))
    best, plan = single_player_best(terms, game)
    return report(game, args, layers, len(seen), len(terms), best=best, plan=plan, comments=comments,
                  solution=solution_lines(game))


# --------------------------------------------------------------------------------------------
# Tic-tac-toe.  State: (board, control); board is a 9-tuple of 'x', 'o', 'b' (row-major).

LINES3 = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class TicTacToe:
    name = "tictactoe"
    roles = ["xplayer", "oplayer"]
    init = (("b",) * 9, "xplayer")
    mark = {"xplayer": "x", "oplayer": "o"}
    other = {"xplayer": "oplayer", "oplayer": "xplayer"}

    def winner(self, s):
        b = s[0]
        for r, m in self.mark.items():
            if any(b[i] == b[j] == b[k] == m for i, j, k in LINES3):
                return r
        return None

    def terminal(self, s):
        return self.winner(s) is not None or "b" not in s[0]

    def mover(self, s):
        return s[1]

    def successors(self, s):
        b, r = s
        out = []
        for i in range(9):
            if b[i] == "b":
                nb = b[:i] + (self.mark[r],) + b[i + 1:]
                out.append(((i // 3 + 1, i % 3 + 1), (nb, self.other[r])))
        return out

    def goals(self, s):
        w = self.winner(s)
        if w is None:
            return {r: 50 for r in self.roles}
        return {w: 100, self.other[w]: 0}


# --------------------------------------------------------------------------------------------
# Connect Four, COLS x ROWS.  Bitboards as in John Tromp's Fhourstones: column c uses bits
# c*(ROWS+1) .. c*(ROWS+1)+ROWS-1, the extra bit on top of each column stays 0.  A position is
# (red, mask): red's discs and all discs; the player to move follows from the number of discs
# (red moves on even counts), which is what the GDL fluent (control ?r) encodes.  Only occupied
# cells exist, as in the GDL; position <-> GDL state is one-to-one.

class Connect4:
    def __init__(self, cols, rows):
        self.W, self.H = cols, rows
        self.name = f"connect4_{cols}x{rows}"
        self.roles = ["red", "yellow"]
        self.H1 = rows + 1
        self.bottom = [1 << (c * self.H1) for c in range(cols)]
        self.top = [1 << (c * self.H1 + rows - 1) for c in range(cols)]
        self.full = sum(((1 << rows) - 1) << (c * self.H1) for c in range(cols))
        self.shift = cols * self.H1
        self.init = 0  # key = red | mask << shift
        self.order = sorted(range(cols), key=lambda c: abs(2 * c - (cols - 1)))

    def four(self, b):
        H1 = self.H1
        for d in (1, H1, H1 - 1, H1 + 1):  # vertical, horizontal, two diagonals
            m = b & (b >> d)
            if m & (m >> (2 * d)):
                return True
        return False

    def unpack(self, k):
        return k & ((1 << self.shift) - 1), k >> self.shift

    def terminal(self, k):
        red, mask = self.unpack(k)
        return mask == self.full or self.four(red) or self.four(red ^ mask)

    def mover(self, k):
        return "red" if bin(k >> self.shift).count("1") % 2 == 0 else "yellow"

    def successors(self, k):
        red, mask = self.unpack(k)
        red_to_move = bin(mask).count("1") % 2 == 0
        out = []
        for c in range(self.W):
            if not mask & self.top[c]:
                nm = mask | (mask + self.bottom[c])
                bit = nm ^ mask
                nr = red | bit if red_to_move else red
                out.append((c + 1, nr | (nm << self.shift)))
        return out

    def goals(self, k):
        red, mask = self.unpack(k)
        if self.four(red):
            return {"red": 100, "yellow": 0}
        if self.four(red ^ mask):
            return {"red": 0, "yellow": 100}
        return {"red": 50, "yellow": 50}

    def count(self):
        """Layered BFS: every move adds a disc, so layer n = positions with n discs."""
        layer = {0}
        layers, terminal = [], 0
        while layer:
            layers.append(len(layer))
            nxt = set()
            for k in layer:
                if self.terminal(k):
                    terminal += 1
                    continue
                for _, t in self.successors(k):
                    nxt.add(t)
            layer = nxt
        return layers, sum(layers), terminal

    def solve(self, start=None):
        """Exact value for the player to move at `start` (a non-terminal key; default the empty
        board, red to move): 1 win, 0 draw, -1 loss, by negamax with alpha-beta and a
        transposition table of bounds.  Inside, `cur` holds the discs of the player to move."""
        H1, W = self.H1, self.W
        full, bottom, top, order = self.full, self.bottom, self.top, self.order
        four = self.four
        table = {}

        def negamax(cur, mask, alpha, beta):
            # cur: discs of the player to move; the opponent just moved and has no line
            if mask == full:
                return 0
            # immediate win
            moves = []
            for c in order:
                if not mask & top[c]:
                    nm = mask | (mask + bottom[c])
                    if four(cur | (nm ^ mask)):
                        return 1
                    moves.append(nm)
            key = cur | (mask << (W * H1))
            e = table.get(key)
            if e is not None:
                lo, hi = e
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                alpha, beta = max(alpha, lo), min(beta, hi)
                if alpha >= beta:
                    return alpha
            a0, b0 = alpha, beta
            best = -2
            opp = cur ^ mask
            for nm in moves:
                v = -negamax(opp, nm, -beta, -alpha)
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            lo, hi = (e if e is not None else (-1, 1))
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
            table[key] = (lo, hi)
            return best

        sys.setrecursionlimit(10000)
        red, mask = self.unpack(start or 0)
        cur = red if bin(mask).count("1") % 2 == 0 else red ^ mask
        v = negamax(cur, mask, -1, 1)
        return v, len(table)


def connect4_main(args, argv):
    cols, rows = int(argv[0]), int(argv[1])
    g = Connect4(cols, rows)
    comments = []
    layers = total = terminal = None
    if "--no-count" not in argv:
        t0 = time.time()
        layers, total, terminal = g.count()
        comments.append("count by layered BFS over bitboards")
        print(f"count: {time.time() - t0:.0f} s", file=sys.stderr)
    values = None
    if "--no-value" not in argv:
        t0 = time.time()
        if "--alphabeta" in argv or total is None or total > 5_000_000:
            v, n = g.solve()
            comments.append("value by alpha-beta negamax with a transposition table")
            print(f"alpha-beta: {n} table entries, {time.time() - t0:.0f} s", file=sys.stderr)
            red = {1: 100, 0: 50, -1: 0}[v]
            values = {"red": red, "yellow": 100 - red}
        else:
            values = security_values(g)
            comments.append("value by full memoised minimax")
            print(f"minimax: {time.time() - t0:.0f} s", file=sys.stderr)
    solution = ()
    if total is not None and total <= 5_000_000 and "--no-value" not in argv:
        solution = solution_lines(g)
    return report(g, args, layers, total, terminal, values=values, comments=comments,
                  solution=solution)


# --------------------------------------------------------------------------------------------
# Nim.  State: (heaps, control); heaps a tuple of sizes (a heap of 0 stays in the state).

class Nim:
    roles = ["first", "second"]
    other = {"first": "second", "second": "first"}

    def __init__(self, heaps):
        self.name = "nim_" + "_".join(map(str, heaps))
        self.init = (tuple(heaps), "first")

    def terminal(self, s):
        return not any(s[0])

    def mover(self, s):
        return s[1]

    def successors(self, s):
        h, r = s
        out = []
        for i, n in enumerate(h):
            for k in range(1, n + 1):
                out.append(((i, k), (h[:i] + (n - k,) + h[i + 1:], self.other[r])))
        return out

    def goals(self, s):
        # normal play: the player left to move at the end (in control) loses
        return {s[1]: 0, self.other[s[1]]: 100}


def nim_main(args, argv):
    heaps = [int(x) for x in argv]
    g = Nim(heaps)
    x = 0
    for n in heaps:
        x ^= n
    return standard(g, args, comments=[f"nim-sum of the initial heaps: {x}"])


# --------------------------------------------------------------------------------------------
# Chomp.  State: (squares, control); squares a frozenset of remaining (c, r).  Variant: the
# player who eats the poisoned square (1, 1) loses; the game ends when it has been eaten.

class Chomp:
    roles = ["first", "second"]
    other = {"first": "second", "second": "first"}

    def __init__(self, cols, rows):
        self.name = f"chomp_{cols}x{rows}"
        self.init = (frozenset((c, r) for c in range(1, cols + 1) for r in range(1, rows + 1)),
                     "first")

    def terminal(self, s):
        return (1, 1) not in s[0]

    def mover(self, s):
        return s[1]

    def successors(self, s):
        sq, p = s
        out = []
        for (c, r) in sorted(sq):
            rest = frozenset((x, y) for (x, y) in sq if not (x >= c and y >= r))
            out.append(((c, r), (rest, self.other[p])))
        return out

    def goals(self, s):
        # the player who ate the poison has just moved; the one in control wins
        return {s[1]: 100, self.other[s[1]]: 0}


# --------------------------------------------------------------------------------------------
# 8-puzzle.  State: (board, step); board a 9-tuple row-major, 0 = blank.  Moves name the
# direction the blank moves.  Terminal at the goal layout or when step == limit.

GOAL8 = (1, 2, 3, 4, 5, 6, 7, 8, 0)
HARD_START = (8, 6, 7, 2, 5, 4, 3, 0, 1)
EASY_START = (0, 1, 3, 4, 2, 8, 7, 6, 5)
DIRS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


def slide(board):
    z = board.index(0)
    r, c = divmod(z, 3)
    for d, (dr, dc) in DIRS.items():
        nr, nc = r + dr, c + dc
        if 0 <= nr < 3 and 0 <= nc < 3:
            t = nr * 3 + nc
            b = list(board)
            b[z], b[t] = b[t], 0
            yield d, tuple(b)


class EightPuzzle:
    roles = ["solver"]

    def __init__(self, name, start, limit):
        self.name, self.limit = name, limit
        self.init = (start, 0)

    def terminal(self, s):
        return s[0] == GOAL8 or s[1] == self.limit

    def mover(self, s):
        return "solver"

    def successors(self, s):
        return [(d, (b, s[1] + 1)) for d, b in slide(s[0])]

    def goals(self, s):
        return {"solver": 100 if s[0] == GOAL8 else 0}


def goal_distances():
    dist = {GOAL8: 0}
    q = deque([GOAL8])
    while q:
        b = q.popleft()
        for _, nb in slide(b):
            if nb not in dist:
                dist[nb] = dist[b] + 1
                q.append(nb)
    return dist


def eight_main(args, argv):
    easy = "--easy" in argv
    dist = goal_distances()
    start = EASY_START if easy else HARD_START
    g = (EightPuzzle("eight_puzzle_easy", start, 10) if easy
         else EightPuzzle("eight_puzzle", start, 40))
    comments = [f"start {start} at distance {dist[start]} from the goal {GOAL8} "
                f"(BFS from the goal); step limit {g.limit}"]
    return standard(g, args, comments=comments, two_player=False)


def eight_distances_main(args, argv):
    dist = goal_distances()
    hist = {}
    for d in dist.values():
        hist[d] = hist.get(d, 0) + 1
    m = max(hist)
    far = sorted(b for b, d in dist.items() if d == m)
    lines = [f"# produced by scripts/oracles/oracles.py {' '.join(args)}",
             f"positions reachable from the goal {GOAL8}: {len(dist)}",
             "per distance: " + " ".join(f"{d}:{hist[d]}" for d in sorted(hist)),
             f"maximum distance {m}, positions: " + "  ".join(
                 "/".join(" ".join(map(str, b[i:i + 3])) for i in (0, 3, 6)) for b in far),
             f"hard start {HARD_START}: distance {dist[HARD_START]}",
             f"easy start {EASY_START}: distance {dist[EASY_START]}"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Towers of Hanoi.  State: (pegs, step); pegs[d-1] is the peg of disk d (1 = smallest).
# Terminal when every disk is on the right peg or step == 2^n + 2.

class Hanoi:
    roles = ["solver"]
    PEGS = ("left", "middle", "right")

    def __init__(self, n):
        self.n = n
        self.name = f"hanoi_{n}"
        self.limit = 2 ** n + 2
        self.init = (("left",) * n, 0)

    def terminal(self, s):
        return all(p == "right" for p in s[0]) or s[1] == self.limit

    def mover(self, s):
        return "solver"

    def successors(self, s):
        pegs, step = s
        out = []
        for f in self.PEGS:
            on_f = [d for d in range(self.n) if pegs[d] == f]
            if not on_f:
                continue
            d = min(on_f)
            for t in self.PEGS:
                if t != f and all(pegs[e] != t for e in range(d)):
                    out.append(((f, t), (pegs[:d] + (t,) + pegs[d + 1:], step + 1)))
        return out

    def goals(self, s):
        return {"solver": 100 if all(p == "right" for p in s[0]) else 0}


# --------------------------------------------------------------------------------------------
# climb_rewards.  State: (place, step, camped).

HEIGHT = {"base": 0, "meadow": 25, "knoll": 60, "gully": 0, "ledge": 25, "ridge": 60,
          "summit": 100}
TRAILS = [("base", "meadow"), ("meadow", "knoll"), ("base", "gully"), ("gully", "ledge"),
          ("ledge", "ridge"), ("ridge", "summit")]


class Climb:
    name = "climb_rewards"
    roles = ["climber"]
    limit = 6
    init = ("base", 0, False)

    def __init__(self):
        self.nbr = {p: [] for p in HEIGHT}
        for a, b in TRAILS:
            self.nbr[a].append(b)
            self.nbr[b].append(a)

    def terminal(self, s):
        return s[2] or s[0] == "summit" or s[1] == self.limit

    def mover(self, s):
        return "climber"

    def successors(self, s):
        p, k, _ = s
        out = [(("go", q), (q, k + 1, False)) for q in self.nbr[p]]
        out.append(("camp", (p, k + 1, True)))
        return out

    def goals(self, s):
        return {"climber": HEIGHT[s[0]]}

    def greedy(self):
        """Always go to the highest neighbour while that is higher than here, else camp."""
        s = self.init
        while not self.terminal(s):
            p = s[0]
            q = max(self.nbr[p], key=lambda x: HEIGHT[x])
            s = (q, s[1] + 1, False) if HEIGHT[q] > HEIGHT[p] else (p, s[1] + 1, True)
        return self.goals(s)["climber"]


def climb_main(args, argv):
    g = Climb()
    layers, seen, terms = bfs(g)
    best, plan = single_player_best(terms, g)
    rewards = sorted({g.goals(s)["climber"] for s in terms})
    per = {v: sum(1 for s in terms if g.goals(s)["climber"] == v) for v in rewards}
    comments = ["terminal states per reward: " + " ".join(f"{v}:{per[v]}" for v in rewards),
                f"greedy climber (highest neighbour, camp at a local peak) gets {g.greedy()}"]
    return report(g, args, layers, len(seen), len(terms), best=best, plan=plan, comments=comments,
                  solution=solution_lines(g))


# --------------------------------------------------------------------------------------------
# Two-round sequential prisoner's dilemma.  State: (round, control, pending, results).

PAY = {("C", "C"): (3, 3), ("C", "D"): (0, 5), ("D", "C"): (5, 0), ("D", "D"): (1, 1)}


class Prisoners:
    name = "prisoners_2p"
    roles = ["alice", "bob"]
    init = (1, "alice", None, ())

    def terminal(self, s):
        return s[0] == 3

    def mover(self, s):
        return s[1]

    def successors(self, s):
        rnd, who, pending, res = s
        if who == "alice":
            return [(a, (rnd, "bob", a, res)) for a in "CD"]
        return [(b, (rnd + 1, "alice", None, res + ((rnd, pending, b),))) for b in "CD"]

    def goals(self, s):
        pa = sum(PAY[(a, b)][0] for _, a, b in s[3])
        pb = sum(PAY[(a, b)][1] for _, a, b in s[3])
        return {"alice": 10 * pa, "bob": 10 * pb}


def prisoners_main(args, argv):
    g = Prisoners()
    spe, ties = subgame_perfect(g)
    layers, seen, terms = bfs(g)
    sums = sorted({sum(g.goals(s).values()) for s in terms})
    comments = ["value = maxmin (what a role guarantees against a minimising opponent)",
                "subgame-perfect payoffs: " + " ".join(f"{r} {spe[r]}" for r in g.roles)
                + f" (states with payoff-relevant ties: {ties})",
                "sums of the goals over terminal states: " + " ".join(map(str, sums))]
    return report(g, args, layers, len(seen), len(terms), values=security_values(g),
                  comments=comments, solution=solution_lines(g))


# --------------------------------------------------------------------------------------------
# single_step.  States: 'ready' -> 'done'.

class SingleStep:
    name = "single_step"
    roles = ["solo"]
    init = "ready"

    def terminal(self, s):
        return s == "done"

    def mover(self, s):
        return "solo"

    def successors(self, s):
        return [("go", "done")]

    def goals(self, s):
        return {"solo": 100}


# --------------------------------------------------------------------------------------------
# pick_log.  State: the picks so far, a tuple of 'red' / 'green' (its length is the step - 1).

class PickLog:
    name = "pick_log"
    roles = ["logger"]
    steps = 8
    init = ()

    def terminal(self, s):
        return len(s) == self.steps

    def mover(self, s):
        return "logger"

    def successors(self, s):
        return [(("pick", c), s + (c,)) for c in ("red", "green")]

    def goals(self, s):
        return {"logger": 100 if len(s) == self.steps and s[-1] == "red" else 0}


# --------------------------------------------------------------------------------------------
# toll_roads.  State: (town, step).  Moves (drive a b) cost the road's toll.

TOLLS = {("home", "port"): 9, ("home", "ash"): 2, ("home", "birch"): 1, ("ash", "port"): 6,
         ("ash", "cedar"): 1, ("birch", "cedar"): 1, ("cedar", "dock"): 2, ("dock", "port"): 1}


class Toll:
    name = "toll_roads"
    roles = ["driver"]
    limit = 6
    init = ("home", 0)

    def __init__(self):
        self.roads = {}
        for (a, b), n in TOLLS.items():
            self.roads.setdefault(a, []).append((b, n))
            self.roads.setdefault(b, []).append((a, n))

    def terminal(self, s):
        return s[0] == "port" or s[1] == self.limit

    def mover(self, s):
        return "driver"

    def successors(self, s):
        return [(("drive", s[0], b), (b, s[1] + 1)) for b, _ in self.roads[s[0]]]

    def cost(self, s, t):
        return next(n for b, n in self.roads[s[0]] if b == t[0])

    def goals(self, s):
        return {"driver": 100 if s[0] == "port" else 0}


def cheapest(game, value):
    """Dijkstra over the reachable graph: the least cost of a terminal state with `value`."""
    import heapq
    dist = {game.init: 0}
    heap = [(0, game.init)]
    while heap:
        d, s = heapq.heappop(heap)
        if d > dist[s]:
            continue
        if game.terminal(s):
            if game.goals(s)[game.roles[0]] == value:
                return d
            continue
        for _, t in game.successors(s):
            nd = d + game.cost(s, t)
            if nd < dist.get(t, nd + 1):
                dist[t] = nd
                heapq.heappush(heap, (nd, t))
    return None


def toll_main(args, argv):
    g = Toll()
    layers, seen, terms = bfs(g)
    best, plan = single_player_best(terms, g)
    return report(g, args, layers, len(seen), len(terms), best=best, plan=plan,
                  solution=solution_lines(g), plan_cost=cheapest(g, best))


# --------------------------------------------------------------------------------------------

def arguments(doc):
    """The command line's arguments and whether --write is among them; prints `doc` and ends
    the script when there are none or they ask for help."""
    argv = sys.argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        print(doc)
        sys.exit(0)
    return argv, "--write" in argv


def emit(name, text, t0):
    """Stores `text` as gdl/NAME.expect, saying so on stderr with the seconds since t0; prints
    it when there is no name (no --write, or a result that is not a fixture)."""
    if name is None:
        sys.stdout.write(text)
        return
    (GDL_DIR / f"{name}.expect").write_text(text)
    print(f"wrote gdl/{name}.expect ({time.time() - t0:.1f} s)", file=sys.stderr)


def run(cmd, argv):
    args = [cmd] + [a for a in argv if a != "--write"]
    if cmd == "tictactoe":
        return "tictactoe", standard(TicTacToe(), args)
    if cmd == "connect4":
        return f"connect4_{argv[0]}x{argv[1]}", connect4_main(args, argv)
    if cmd == "nim":
        return "nim_" + "_".join(a for a in argv if not a.startswith("--")), nim_main(
            args, [a for a in argv if not a.startswith("--")])
    if cmd == "chomp":
        g = Chomp(int(argv[0]), int(argv[1]))
        return g.name, standard(g, args)
    if cmd == "eight-puzzle":
        return ("eight_puzzle_easy" if "--easy" in argv else "eight_puzzle"), eight_main(args, argv)
    if cmd == "eight-puzzle-distances":
        return None, eight_distances_main(args, argv)
    if cmd == "hanoi":
        g = Hanoi(int(argv[0]))
        return g.name, standard(g, args, two_player=False)
    if cmd == "climb":
        return "climb_rewards", climb_main(args, argv)
    if cmd == "prisoners":
        return "prisoners_2p", prisoners_main(args, argv)
    if cmd == "toll":
        return "toll_roads", toll_main(args, argv)
    if cmd == "single-step":
        return "single_step", standard(SingleStep(), args, two_player=False)
    if cmd == "pick-log":
        return "pick_log", standard(PickLog(), args, two_player=False)
    raise SystemExit(f"unknown game {cmd!r}\n{__doc__}")


ALL = [("tictactoe", []), ("nim", ["3", "4", "5"]), ("nim", ["1", "2", "3"]),
       ("chomp", ["4", "3"]), ("connect4", ["4", "4"]), ("eight-puzzle", ["--easy"]),
       ("eight-puzzle", []), ("hanoi", ["3"]), ("hanoi", ["4"]), ("hanoi", ["5"]),
       ("climb", []), ("prisoners", []), ("single-step", []), ("pick-log", []),
       ("toll", [])]


def main():
    argv, write = arguments(__doc__)
    jobs = [(argv[0], argv[1:])]
    if argv[0] == "all":
        jobs = list(ALL)
        if "--slow" in argv:
            jobs.append(("connect4", ["5", "4"]))
        jobs = [(c, a + (["--write"] if write else [])) for c, a in jobs]
    for cmd, rest in jobs:
        t0 = time.time()
        name, text = run(cmd, rest)
        emit(name if write else None, text, t0)


if __name__ == "__main__":
    main()
