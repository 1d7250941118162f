#!/usr/bin/env python3
"""Judge every position of games with python-chess (an independent judge) and print JSON.

Usage: assess-positions.py FILE. FILE holds one game per line: UCI moves separated by
spaces, from the standard start. Prints one JSON array per game, one object per position
(the start first): "checkmate", "stalemate", "fivefold", "seventyfive", "threefold" (the
position has stood three times), "fifty" (100 half-moves without pawn move or capture),
"insufficient" ([white, black]: the side cannot mate). Used by game/tests/it/laws_python.rs;
needs `pip install chess`.
"""
import json
import sys

import chess


def verdict(board):
    return {
        "checkmate": board.is_checkmate(),
        "stalemate": board.is_stalemate(),
        "fivefold": board.is_fivefold_repetition(),
        "seventyfive": board.is_seventyfive_moves(),
        "threefold": board.is_repetition(3),
        "fifty": board.halfmove_clock >= 100,
        "insufficient": [
            board.has_insufficient_material(chess.WHITE),
            board.has_insufficient_material(chess.BLACK),
        ],
    }


def main(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            board = chess.Board()
            out = [verdict(board)]
            for uci in line.split():
                board.push_uci(uci)
                out.append(verdict(board))
            print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
