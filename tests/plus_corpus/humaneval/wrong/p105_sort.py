# wrong: mutation: sorts the caller's list in place; e.g. by_length([1, 2]) mutates its argument to [2, 1], expected it unchanged
def by_length(arr):
    names = {1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five",
             6: "Six", 7: "Seven", 8: "Eight", 9: "Nine"}
    arr.sort(reverse=True)
    return [names[x] for x in arr if x in names]
