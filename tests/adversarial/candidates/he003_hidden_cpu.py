# expect: stable_fail timeout
# Far too slow, with the work hidden in fork()ed children, each under any per-process CPU limit: the
# candidate's processes together must be held to the limit (issue 42).
import os
import time
from typing import List


def below_zero(operations: List[int]) -> bool:
    for _ in range(40):
        r, w = os.pipe()
        if os.fork() == 0:
            end = time.process_time() + 0.8
            while time.process_time() < end:
                pass
            os._exit(0)
        os.close(w)
        os.read(r, 1)  # end of file: the child is gone
        os.close(r)
    balance = 0
    for op in operations:
        balance += op
        if balance < 0:
            return True
    return False
