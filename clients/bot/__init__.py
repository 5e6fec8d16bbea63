"""clients/bot"""
