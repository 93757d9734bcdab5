# wrong: mutation: writes the differences into the caller's game list; e.g. compare([1, 2], [2, 2]) mutates its argument to [1, 0], expected it unchanged
def compare(game, guess):
    for i in range(len(game)):
        game[i] = abs(game[i] - guess[i])
    return game
