#!/usr/bin/env python3
"""Independent oracles for the bundled games in gdl/ with more than two roles or simultaneous
moves: nim3p, ring4p, penalty_kick, three_dials and three_gates.

Like oracles.py (whose machinery assumes one role in control; its BFS and its writing of the
fixtures serve here too), each game is implemented here directly from its rules (the GDL files are NOT read), with a state that mirrors the GDL fluents
one-to-one, and every role moves at every step (a joint move has one move per role; a role not
in control plays noop). The figures:

  * BFS layers of reachable states from the initial state; terminal states are counted but not
    expanded; the total number of states and of terminal states;
  * `security ROLE V`: the security level of each role at the initial state, the largest reward
    it can guarantee in pure strategies choosing each move without seeing the other roles'
    moves of the same step: the goal at a terminal state, else the maximum over its moves m of
    the minimum, over every joint move with its move m, of its level in the successor;
  * turn-taking games: `maxn_initial R1/R2/...`, the outcome of the initial state when the role
    in control picks, among its successors' outcomes, the one it prefers: with three roles or
    more the largest own reward, ties to the smallest sum of the others' rewards (max^n); and
    `outcome R1/R2/... N`, the number of reachable states with each outcome. The script checks
    that these outcomes do not depend on how the remaining ties are broken (it computes every
    outcome that some tie-breaking can give and requires exactly one per state);
  * two-role constant-sum games with simultaneous moves: `mixed_value ROLE V`, the value of the
    game in mixed strategies (each step a matrix game over the successors' values, solved
    exactly with fractions by support enumeration), with two decimals.

usage:
  nplayer.py nim3p
  nplayer.py ring4p
  nplayer.py penalty-kick
  nplayer.py three-dials
  nplayer.py three-gates
  nplayer.py all

Add --write to store the result as gdl/<game>.expect instead of printing it.
Standard library only.
"""
import itertools
import sys
import time
from fractions import Fraction

from oracles import arguments, bfs, emit


# --------------------------------------------------------------------------------------------
# Generic machinery.  A game is an object with:
#   name, roles (names, in the order of the GDL role facts), init, terminal(s), goals(s) -> tuple
#   in role order (read at terminal states), legal(s, i) -> list of moves of role i,
#   next(s, joint) -> state (joint: one move per role, in role order).

def joint_moves(game, s):
    """Every joint move of the non-terminal state s, as (joint, successor)."""
    moves = [game.legal(s, i) for i in range(len(game.roles))]
    for i, m in enumerate(moves):
        if not m:
            raise SystemExit(f"{game.name}: role {game.roles[i]} has no legal move in {s}")
    return [(j, game.next(s, j)) for j in itertools.product(*moves)]


def post_order(game):
    """Every reachable state, successors before predecessors (iterative DFS; the games are
    acyclic, which is checked)."""
    order, done, on_path = [], set(), set()
    stack = [(game.init, None)]
    while stack:
        s, kids = stack.pop()
        if kids is None:
            if s in done:
                continue
            if game.terminal(s):
                done.add(s)
                order.append(s)
                continue
            on_path.add(s)
            kids = [t for _, t in joint_moves(game, s)]
        pending = [t for t in kids if t not in done]
        if pending:
            t = pending[0]
            if t in on_path:
                raise SystemExit(f"{game.name}: cycle through {t}")
            stack.append((s, pending[1:]))
            stack.append((t, None))
        else:
            on_path.discard(s)
            done.add(s)
            order.append(s)
    return order


def security_levels(game, order):
    """The security level of every role in every state, as {state: tuple}."""
    n = len(game.roles)
    level = {}
    for s in order:
        if game.terminal(s):
            level[s] = tuple(game.goals(s))
            continue
        succ = joint_moves(game, s)
        level[s] = tuple(
            max(min(level[t][i] for j, t in succ if j[i] == m) for m in game.legal(s, i))
            for i in range(n))
    return level


def preference_key(o, i):
    """How much role i likes outcome o (larger is better): the rule of `symgame solve`."""
    own = o[i]
    others = sum(o) - own
    if len(o) == 1:
        return (own, own)
    if len(o) == 2:
        return (own - others, own)
    return (own, -others)


def maxn(game, order):
    """For a turn-taking game, every outcome each state can have under the preference rule for
    some way of breaking ties: {state: set of outcomes}."""
    possible = {}
    for s in order:
        if game.terminal(s):
            possible[s] = {tuple(game.goals(s))}
            continue
        movers = [i for i in range(len(game.roles)) if len(game.legal(s, i)) > 1]
        if len(movers) > 1:
            raise SystemExit(f"{game.name}: simultaneous moves in {s}")
        kids = [possible[t] for _, t in joint_moves(game, s)]
        if not movers:
            possible[s] = set(kids[0])
            continue
        i = movers[0]
        out = set()
        for c, options in enumerate(kids):
            # Outcome o of child c can be chosen when every other child can realise an outcome
            # the mover does not like better than o.
            rivals = [min(preference_key(o, i) for o in k) for d, k in enumerate(kids) if d != c]
            out |= {o for o in options if all(preference_key(o, i) >= r for r in rivals)}
        possible[s] = out
    return possible


def solve_matrix(a):
    """The value for the row player (maximising) of the matrix game a (a list of rows of
    Fractions), exact: the first square support pair whose equalising strategies are
    optimal (Shapley-Snow)."""
    m, n = len(a), len(a[0])
    for k in range(1, min(m, n) + 1):
        for rows in itertools.combinations(range(m), k):
            for cols in itertools.combinations(range(n), k):
                x = equalise([[a[r][c] for r in rows] for c in cols])
                y = equalise([[a[r][c] for c in cols] for r in rows])
                if x is None or y is None:
                    continue
                (px, v), (py, w) = x, y
                if v != w or min(px) < 0 or min(py) < 0:
                    continue
                full_x = dict(zip(rows, px))
                full_y = dict(zip(cols, py))
                if all(sum(full_x[r] * a[r][c] for r in rows) >= v for c in range(n)) and all(
                        sum(full_y[c] * a[r][c] for c in cols) <= v for r in range(m)):
                    return v
    raise SystemExit("no solution found for a matrix game (cannot happen)")


def equalise(eqs):
    """Probabilities p (summing to 1) and v with sum_i p_i * row[i] == v for every row of eqs,
    or None when the system is singular."""
    k = len(eqs)
    # Unknowns p_0..p_{k-1}, v; equations: rows, and sum p = 1.
    mat = [list(map(Fraction, row)) + [Fraction(-1), Fraction(0)] for row in eqs]
    mat.append([Fraction(1)] * k + [Fraction(0), Fraction(1)])
    size = k + 1
    for col in range(size):
        pivot = next((r for r in range(col, size) if mat[r][col] != 0), None)
        if pivot is None:
            return None
        mat[col], mat[pivot] = mat[pivot], mat[col]
        for r in range(size):
            if r != col and mat[r][col] != 0:
                f = mat[r][col] / mat[col][col]
                mat[r] = [x - f * y for x, y in zip(mat[r], mat[col])]
    sol = [mat[r][size] / mat[r][r] for r in range(size)]
    return sol[:k], sol[k]


def mixed_values(game, order):
    """Two-role constant-sum games: the mixed value of every state for the first role."""
    total = None
    value = {}
    for s in order:
        if game.terminal(s):
            g = game.goals(s)
            if total is None:
                total = sum(g)
            if sum(g) != total:
                raise SystemExit(f"{game.name}: not constant-sum")
            value[s] = Fraction(g[0])
            continue
        rows, cols = game.legal(s, 0), game.legal(s, 1)
        succ = dict(joint_moves(game, s))
        value[s] = solve_matrix([[value[succ[(r, c)]] for c in cols] for r in rows])
    return value, total


def fmt(o):
    return "/".join(map(str, o))


def report(game, args, comments=()):
    layers, states, terminals = bfs(game, lambda s: joint_moves(game, s))
    order = post_order(game)
    assert set(order) == states
    lines = [f"# produced by scripts/oracles/nplayer.py {' '.join(args)}"]
    lines += [f"# {c}" for c in comments]
    lines += [f"game {game.name}", "roles " + " ".join(game.roles),
              "layers " + " ".join(map(str, layers)), f"states {len(states)}",
              f"terminal {len(terminals)}"]
    level = security_levels(game, order)
    lines += [f"security {r} {v}" for r, v in zip(game.roles, level[game.init])]
    simultaneous = any(
        sum(len(game.legal(s, i)) > 1 for i in range(len(game.roles))) > 1
        for s in states if not game.terminal(s))
    if simultaneous:
        if len(game.roles) == 2:
            value, total = mixed_values(game, order)
            v = value[game.init]
            lines.append(f"mixed_value {game.roles[0]} {float(v):.2f}")
            lines.append(f"mixed_value {game.roles[1]} {float(total - v):.2f}")
            lines.insert(1 + len(comments), f"# mixed value of {game.roles[0]}: exactly {v}")
    else:
        possible = maxn(game, order)
        ambiguous = [s for s, o in possible.items() if len(o) != 1]
        if ambiguous:
            raise SystemExit(f"{game.name}: {len(ambiguous)} states have an outcome that "
                             "depends on tie-breaking")
        lines.append(f"maxn_initial {fmt(next(iter(possible[game.init])))}")
        counts = {}
        for o in possible.values():
            (o,) = o
            counts[o] = counts.get(o, 0) + 1
        lines += [f"outcome {fmt(o)} {counts[o]}" for o in sorted(counts, reverse=True)]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# The games.

class Nim3p:
    """Three-player Nim (gdl/nim3p.kif): heaps a, b, c; state (heap sizes, role in control)."""
    name = "nim3p"
    roles = ["first", "second", "third"]
    heaps = (2, 3, 4)

    def __init__(self):
        self.init = (self.heaps, 0)

    def terminal(self, s):
        return all(h == 0 for h in s[0])

    def goals(self, s):
        control = s[1]
        winner = (control - 1) % 3  # the player who took the last object
        # the winner 100, the player left to move 50, the player who moved before the winner 0
        return tuple({winner: 100, control: 50}.get(i, 0) for i in range(3))

    def legal(self, s, i):
        if i != s[1]:
            return ["noop"]
        return [(h, k) for h in range(3) for k in range(1, s[0][h] + 1)]

    def next(self, s, joint):
        h, k = joint[s[1]]
        heaps = list(s[0])
        heaps[h] -= k
        return (tuple(heaps), (s[1] + 1) % 3)


class Ring4p:
    """Four players marking the cells of a ring of 8 (gdl/ring4p.kif): state (owner of each
    cell, 0 for blank or 1 + role index; the role in control)."""
    name = "ring4p"
    roles = ["north", "east", "south", "west"]
    cells = 8
    # reward by position after the winner: the winner, the next player, the one after, and the
    # player who moved just before the winner
    by_offset = (100, 30, 20, 0)
    draw = 50

    def __init__(self):
        self.init = ((0,) * self.cells, 0)

    def winner(self, board):
        for c in range(self.cells):
            d = (c + 1) % self.cells
            if board[c] and board[c] == board[d]:
                return board[c] - 1
        return None

    def terminal(self, s):
        return self.winner(s[0]) is not None or all(s[0])

    def goals(self, s):
        w = self.winner(s[0])
        if w is None:
            return (self.draw,) * 4
        return tuple(self.by_offset[(i - w) % 4] for i in range(4))

    def legal(self, s, i):
        if i != s[1]:
            return ["noop"]
        return [c for c in range(self.cells) if s[0][c] == 0]

    def next(self, s, joint):
        board = list(s[0])
        board[joint[s[1]]] = s[1] + 1
        return (tuple(board), (s[1] + 1) % 4)


class PenaltyKick:
    """Two simultaneous penalty kicks (gdl/penalty_kick.kif): state (round, kicker's points)."""
    name = "penalty_kick"
    roles = ["kicker", "keeper"]
    rounds = 2
    # points of (kick, dive)
    points = {("left", "left"): 0, ("left", "right"): 2,
              ("right", "left"): 2, ("right", "right"): 1}

    def __init__(self):
        self.init = (1, 0)

    def terminal(self, s):
        return s[0] > self.rounds

    def goals(self, s):
        kicker = 25 * s[1]
        return (kicker, 100 - kicker)

    def legal(self, s, i):
        return ["left", "right"]

    def next(self, s, joint):
        return (s[0] + 1, s[1] + self.points[joint])


class ThreeGates:
    """Three rounds of a raid (gdl/three_gates.kif): state (round, attacker's points)."""
    name = "three_gates"
    roles = ["attacker", "defender"]
    rounds = 3
    # points of (gate, post)
    points = {("a", "x"): 0, ("a", "y"): 3, ("b", "x"): 2, ("b", "y"): 0,
              ("c", "x"): 1, ("c", "y"): 1}
    rewards = [0, 10, 20, 40, 50, 60, 80, 90, 95, 100]

    def __init__(self):
        self.init = (1, 0)

    def terminal(self, s):
        return s[0] > self.rounds

    def goals(self, s):
        attacker = self.rewards[s[1]]
        return (attacker, 100 - attacker)

    def legal(self, s, i):
        return ["a", "b", "c"] if i == 0 else ["x", "y"]

    def next(self, s, joint):
        return (s[0] + 1, s[1] + self.points[joint])


class ThreeDials:
    """Three players turning their own dials at once (gdl/three_dials.kif): state (the dials of
    red, green and blue, the round)."""
    name = "three_dials"
    roles = ["red", "green", "blue"]
    last_round = 4

    def __init__(self):
        self.init = ((0, 0, 0), 1)

    def terminal(self, s):
        return s[1] == self.last_round

    def goals(self, s):
        return tuple(25 * d for d in s[0])

    def legal(self, s, i):
        return [0, 1, 2, 3]

    def next(self, s, joint):
        return (tuple((d + k) % 5 for d, k in zip(s[0], joint)), s[1] + 1)


GAMES = {"nim3p": Nim3p, "ring4p": Ring4p, "penalty-kick": PenaltyKick,
         "three-dials": ThreeDials, "three-gates": ThreeGates}
COMMENTS = {
    "nim3p": ["three-player Nim, heaps 2 3 4, roles in rotation; the player who takes the last "
              "object 100, the player left to move 50, the player before the winner 0"],
    "ring4p": ["four players in rotation mark the cells of a ring of 8; two adjacent cells of one "
               "player win: 100 to the winner, 30 and 20 to the next two players, 0 to the "
               "player before the winner; a full ring without a pair gives 50 to everyone"],
    "three-dials": ["three players turn their own dials (0..4) at once by 0..3 modulo 5, three "
                    "steps; each gets 25 times its own dial"],
    "penalty-kick": ["two rounds of a simultaneous 2x2 game: points (kick, dive) = (left, left) 0, "
                     "(left, right) 2, (right, left) 2, (right, right) 1; kicker 25 per point, "
                     "keeper the rest"],
    "three-gates": ["three rounds of a simultaneous 3x2 game: points (gate, post) = (a, x) 0, "
                    "(a, y) 3, (b, x) 2, (b, y) 0, (c, x) 1, (c, y) 1; the attacker gets "
                    "0 10 20 40 50 60 80 90 95 100 for 0..9 points, the defender the rest"],
}


def main():
    argv, write = arguments(__doc__)
    names = list(GAMES) if argv[0] == "all" else [argv[0]]
    for name in names:
        if name not in GAMES:
            raise SystemExit(f"unknown game {name!r}\n{__doc__}")
        t0 = time.time()
        game = GAMES[name]()
        text = report(game, [name], COMMENTS[name])
        emit(game.name if write else None, text, t0)


if __name__ == "__main__":
    main()
