#!/usr/bin/env python3
"""Read PGN games with python-chess (an independent reader) and print what it sees as JSON.

Usage: pgn-read.py FILE. Prints one JSON object per game: "headers", "san", "uci", "clk"
(seconds or null per move), "emt" (seconds or null per move), "comment" (the game's comment:
what stands before the first move), "errors" (the reader's own complaints) and "result". Used
by game/tests/it/pgn_python.rs; needs `pip install chess`.
"""
import json
import sys

import chess.pgn


def unescape(value):
    """PGN §8.1.1 string escapes (python-chess hands tag values over as written)."""
    out, i = [], 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value) and value[i + 1] in "\\\"":
            i += 1
        out.append(value[i])
        i += 1
    return "".join(out)


def main(path):
    with open(path, encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            san, uci, clk, emt = [], [], [], []
            board = game.board()
            for node in game.mainline():
                san.append(board.san(node.move))
                uci.append(node.move.uci())
                board.push(node.move)
                clk.append(node.clock())
                emt.append(node.emt())
            print(json.dumps({
                "headers": {k: unescape(v) for k, v in game.headers.items()},
                "san": san,
                "uci": uci,
                "clk": clk,
                "emt": emt,
                "comment": game.comment,
                "errors": [str(e) for e in game.errors],
                "result": game.headers.get("Result"),
            }))


if __name__ == "__main__":
    main(sys.argv[1])
