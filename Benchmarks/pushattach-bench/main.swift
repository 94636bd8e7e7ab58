print("pushattach-bench")
