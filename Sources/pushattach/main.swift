print("pushattach")
