#!/usr/bin/env python3
"""Say what python-chess (an independent judge) knows of positions, as JSON lines.

Usage: fen-facts.py FILE. FILE holds one FEN a line. Prints one JSON object a line, in
order: "valid" (a legal position), "moves" (its legal moves, UCI), "checkmate",
"stalemate", "insufficient" ([white, black]: the side cannot mate by the material), and
"after" (for each legal move, "insufficient" of the position after it). python-chess has
no unwinnability search: this is the material and legality part only. Used by
game/tests/it/winnable_python.rs; needs `pip install chess`.
"""
import json
import sys

import chess


def insufficient(board):
    return [
        board.has_insufficient_material(chess.WHITE),
        board.has_insufficient_material(chess.BLACK),
    ]


def facts(fen):
    board = chess.Board(fen)
    after = []
    for move in board.legal_moves:
        board.push(move)
        after.append(insufficient(board))
        board.pop()
    return {
        "valid": board.is_valid(),
        "moves": [m.uci() for m in board.legal_moves],
        "checkmate": board.is_checkmate(),
        "stalemate": board.is_stalemate(),
        "insufficient": insufficient(board),
        "after": after,
    }


def main(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                print(json.dumps(facts(line)))


if __name__ == "__main__":
    main(sys.argv[1])
